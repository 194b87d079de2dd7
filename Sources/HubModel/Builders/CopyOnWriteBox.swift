/// Heap storage for a value-type builder, copied before a write when shared.
///
/// `@unchecked Sendable` is safe because the box is never mutated while shared: every
/// mutation goes through ``ComponentModelBuilder``'s `mutate`, which first checks
/// `isKnownUniquelyReferenced` and copies the box when another builder (possibly on another
/// thread, e.g. a snapshot) still holds it. A uniquely referenced box is reachable from one
/// `inout` access only, which Swift's exclusivity rules confine to one thread.
@usableFromInline final class CopyOnWriteBox<Value: Sendable>: @unchecked Sendable {
    @usableFromInline var value: Value

    @usableFromInline init(_ value: Value) {
        self.value = value
    }
}
