import Synchronization

/// A reference stored at most once, then read by any thread without a lock: a value made on
/// first use and shared by every later caller (a body's file, a view's formatted header).
///
/// What `Synchronization.AtomicLazyReference` does, but specialised where it is used: that
/// type's methods are not inlinable, so every `load()` ran as generic code and instantiated its
/// metadata (about 0.3 us of each held view request in `perf`, on a path that reads three of
/// them). Here the methods are `@inlinable` and the storage is a concrete `Atomic<UInt>`.
///
/// `Sendable` without `@unchecked`: the only stored property is an `Atomic`, and `Instance` must
/// be `Sendable` itself, since every thread that loads it shares it.
public struct WriteOnceReference<Instance: AnyObject & Sendable>: ~Copyable, Sendable {
    /// The stored instance's address, retained once by this value; 0 while none is stored.
    @usableFromInline let address: Atomic<UInt>

    /// No instance yet.
    @inlinable
    public init() {
        address = Atomic(0)
    }

    /// The stored instance, or nil if none is stored yet. An acquiring load: what the storing
    /// thread wrote into the instance before storing it is visible.
    @inlinable
    public func load() -> Instance? {
        guard let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) else { return nil }
        return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Stores `instance` if none is stored yet and returns it; otherwise returns the instance
    /// stored first (and `instance` is dropped). Every caller gets the one instance kept.
    @inlinable
    public func storeIfNil(_ instance: Instance) -> Instance {
        let retained = Unmanaged.passRetained(instance)
        let (exchanged, original) = address.compareExchange(
            expected: 0, desired: UInt(bitPattern: retained.toOpaque()), ordering: .acquiringAndReleasing)
        if exchanged { return instance }
        retained.release()
        // `original` is non-zero: the exchange failed because an instance was there.
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: address.load(ordering: .acquiring)) {
            Unmanaged<Instance>.fromOpaque(pointer).release()
        }
    }
}
