/// What changed in the body of a view between two view models (reference section 7).
///
/// Only body components are compared (S173): a component's identity is its identifier, and a
/// component present in both with a different content (``ComponentModel`` `==`, which
/// ignores `index` and `indexPath`, S81) is *reloaded*. Indexes follow the batch-update
/// convention of list views (S178): deletes and reloads are indexes in the **old** body,
/// inserts are indexes in the **new** body. There is no move: a component that changed
/// position is a delete at its old index plus an insert at its new one (S181). Overlays are
/// not compared; a header change only sets ``headerChanged`` (S180).
///
/// The matching is a longest common subsequence of the two identifier sequences, found with
/// Myers' O((N+M)D) algorithm in its linear-space (middle snake) form, so a large body with
/// few changes costs little. Identifiers present on only one side are set aside first: they
/// are always a delete or an insert, and leaving them out keeps D small.
///
/// Duplicate identifiers within one body (S182) cannot come out of the builders (a
/// ``ComponentBuilderList`` holds one builder per identifier, and JSON with a repeated id
/// merges into one component, S30). A hand-made ``ViewModel`` with duplicates still gets a
/// valid diff: occurrences are matched in order, as the upstream algorithms do.
public struct ViewModelDiff: Sendable, Equatable {
    /// Indexes in the new body of components that are new there (ascending).
    public let insertedBodyIndexes: [Int]
    /// Indexes in the old body of components that are gone or moved (ascending).
    public let deletedBodyIndexes: [Int]
    /// Indexes in the old body of components kept in place whose content changed (ascending).
    public let reloadedBodyIndexes: [Int]
    /// `true` when the header appeared, disappeared or changed (S180).
    public let headerChanged: Bool

    /// `true` when anything changed: an insert, delete, reload or the header (S174, S180).
    public var hasChanges: Bool {
        headerChanged || !insertedBodyIndexes.isEmpty || !deletedBodyIndexes.isEmpty || !reloadedBodyIndexes.isEmpty
    }

    /// The changes that turn `old` into `new`.
    public init(from old: ViewModel, to new: ViewModel) {
        // Compact view models parse once here, not at each read below.
        let old = old.expanded, new = new.expanded
        headerChanged = old.header != new.header
        let oldBody = old.body
        let newBody = new.body

        // Identifiers as small integers: equal ids, equal integers.
        var codes: [String: Int] = [:]
        codes.reserveCapacity(newBody.count)
        var newCodes = [Int]()
        newCodes.reserveCapacity(newBody.count)
        for model in newBody {
            if let code = codes[model.identifier] {
                newCodes.append(code)
            } else {
                let code = codes.count
                codes[model.identifier] = code
                newCodes.append(code)
            }
        }
        var oldInNew = [Bool](repeating: false, count: codes.count)
        var oldCodes = [Int]()
        oldCodes.reserveCapacity(oldBody.count)
        for model in oldBody {
            let code = codes[model.identifier] ?? -1
            oldCodes.append(code)
            if code >= 0 { oldInNew[code] = true }
        }

        // Only identifiers on both sides can match; remember where they came from.
        var oldPositions = [Int]()
        var a = [Int]()
        for (position, code) in oldCodes.enumerated() where code >= 0 {
            oldPositions.append(position)
            a.append(code)
        }
        var newPositions = [Int]()
        var b = [Int]()
        for (position, code) in newCodes.enumerated() where oldInNew[code] {
            newPositions.append(position)
            b.append(code)
        }

        var matcher = MyersMatcher(a: a, b: b)
        matcher.match(aLow: 0, aHigh: a.count, bLow: 0, bHigh: b.count)

        var oldMatched = [Bool](repeating: false, count: oldBody.count)
        var newMatched = [Bool](repeating: false, count: newBody.count)
        var reloaded: [Int] = []
        for (i, j) in matcher.matches {
            let oldIndex = oldPositions[i]
            let newIndex = newPositions[j]
            oldMatched[oldIndex] = true
            newMatched[newIndex] = true
            if oldBody[oldIndex] != newBody[newIndex] { reloaded.append(oldIndex) }
        }
        deletedBodyIndexes = oldMatched.indices.filter { !oldMatched[$0] }
        insertedBodyIndexes = newMatched.indices.filter { !newMatched[$0] }
        reloadedBodyIndexes = reloaded
    }
}

/// Myers' linear-space LCS: the matched pairs `(i, j)`, `a[i] == b[j]`, in ascending order.
private struct MyersMatcher {
    let a: [Int]
    let b: [Int]
    private(set) var matches: [(Int, Int)] = []

    init(a: [Int], b: [Int]) {
        self.a = a
        self.b = b
        matches.reserveCapacity(min(a.count, b.count))
    }

    mutating func match(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int) {
        var aLow = aLow, bLow = bLow, aHigh = aHigh, bHigh = bHigh
        // Common prefix.
        while aLow < aHigh && bLow < bHigh && a[aLow] == b[bLow] {
            matches.append((aLow, bLow))
            aLow += 1
            bLow += 1
        }
        // Common suffix, appended after the middle.
        var suffix = 0
        while aLow < aHigh && bLow < bHigh && a[aHigh - 1] == b[bHigh - 1] {
            aHigh -= 1
            bHigh -= 1
            suffix += 1
        }
        if aLow < aHigh && bLow < bHigh,
            let (x, y) = middle(aLow: aLow, aHigh: aHigh, bLow: bLow, bHigh: bHigh),
            (x, y) != (aLow, bLow), (x, y) != (aHigh, bHigh)  // always true; guards against looping
        {
            match(aLow: aLow, aHigh: x, bLow: bLow, bHigh: y)
            match(aLow: x, aHigh: aHigh, bLow: y, bHigh: bHigh)
        }
        for offset in 0..<suffix {
            matches.append((aHigh + offset, bHigh + offset))
        }
    }

    /// The point where the forward and reverse D-paths meet (Myers 1986, section 4b): the
    /// problem splits there into two halves of about D/2 differences each.
    private func middle(aLow: Int, aHigh: Int, bLow: Int, bHigh: Int) -> (Int, Int)? {
        let n = aHigh - aLow
        let m = bHigh - bLow
        let maxD = (n + m + 1) / 2
        let offset = maxD + 1
        let length = 2 * maxD + 3
        var forward = [Int](repeating: -1, count: length)
        var reverse = [Int](repeating: -1, count: length)
        forward[offset + 1] = 0
        reverse[offset + 1] = 0
        let delta = n - m
        let checkForward = delta % 2 != 0
        var forwardStart = 0, forwardEnd = 0, reverseStart = 0, reverseEnd = 0
        for d in 0...maxD {
            var k = -d + forwardStart
            while k <= d - forwardEnd {
                let index = offset + k
                var x = (k == -d || (k != d && forward[index - 1] < forward[index + 1]))
                    ? forward[index + 1] : forward[index - 1] + 1
                var y = x - k
                while x < n && y < m && a[aLow + x] == b[bLow + y] {
                    x += 1
                    y += 1
                }
                forward[index] = x
                if x > n {
                    forwardEnd += 2
                } else if y > m {
                    forwardStart += 2
                } else if checkForward {
                    let other = offset + delta - k
                    if other >= 0 && other < length && reverse[other] != -1 && x >= n - reverse[other] {
                        return (aLow + x, bLow + y)
                    }
                }
                k += 2
            }
            k = -d + reverseStart
            while k <= d - reverseEnd {
                let index = offset + k
                var x = (k == -d || (k != d && reverse[index - 1] < reverse[index + 1]))
                    ? reverse[index + 1] : reverse[index - 1] + 1
                var y = x - k
                while x < n && y < m && a[aHigh - 1 - x] == b[bHigh - 1 - y] {
                    x += 1
                    y += 1
                }
                reverse[index] = x
                if x > n {
                    reverseEnd += 2
                } else if y > m {
                    reverseStart += 2
                } else if !checkForward {
                    let other = offset + delta - k
                    if other >= 0 && other < length && forward[other] != -1 {
                        let forwardX = forward[other]
                        let forwardY = forwardX - (delta - k)
                        if forwardX >= n - x { return (aLow + forwardX, bLow + forwardY) }
                    }
                }
                k += 2
            }
        }
        return nil
    }
}
