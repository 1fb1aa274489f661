import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Who a store belongs to, and what a command run as root does about it.
///
/// Root running a command on a store another user owns — the service's `attach` user, under
/// `/var/lib/attach` — would leave root-owned originals, temporary files and SQLite `-wal` and
/// `-shm` files that the service then cannot read or write ("missing on disk", a catalog it
/// cannot open). So an admin command run as root on such a store first becomes the store's
/// owner (its groups, then its group, then its user) and works as that user; `attach serve`,
/// which reads keys and binds ports as whoever starts it, is refused instead. A store that does
/// not exist yet belongs to the owner of the nearest folder above it that does.
enum StoreOwner {
    /// A user that owns a folder.
    struct Owner: Equatable, CustomStringConvertible {
        let uid: uid_t
        let gid: gid_t
        /// The user's name, when the password database has one.
        let name: String?

        var description: String { name.map { "\($0) (uid \(uid))" } ?? "uid \(uid)" }
    }

    /// The owner of `store`, or of the nearest existing folder above it.
    static func owner(of store: URL) -> Owner? {
        var path = store.standardizedFileURL.path(percentEncoded: false)
        while true {
            var status = stat()
            if stat(path, &status) == 0 {
                let name = getpwuid(status.st_uid).flatMap { $0.pointee.pw_name.map { String(cString: $0) } }
                return Owner(uid: status.st_uid, gid: status.st_gid, name: name)
            }
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { return nil }
            path = parent
        }
    }

    /// The owner root must become to work on `store`, or nil when nothing needs to change:
    /// the process is not root, or root owns the store.
    static func foreignOwner(of store: URL) -> Owner? {
        guard geteuid() == 0, let owner = owner(of: store), owner.uid != 0 else { return nil }
        return owner
    }

    /// Becomes the owner of `store` when running as root on a store another user owns, saying
    /// so on standard error; does nothing otherwise.
    /// - Throws: ``StoreOwnerError/cannotSwitch(store:owner:call:errno:)`` when the switch fails
    ///   (nothing has been opened yet).
    static func becomeOwner(of store: URL) throws(StoreOwnerError) {
        guard let owner = foreignOwner(of: store) else { return }
        let path = shownPath(store)
        // Supplementary groups first (the owner's own, or none), while still allowed to.
        let groupsSet = owner.name.map { initgroups($0, owner.gid) } ?? setgroups(0, nil)
        guard groupsSet == 0 else { throw .cannotSwitch(store: path, owner: owner.description, call: "setgroups", errno: errno) }
        // glibc applies setgid and setuid to every thread of the process.
        guard setgid(owner.gid) == 0 else { throw .cannotSwitch(store: path, owner: owner.description, call: "setgid", errno: errno) }
        guard setuid(owner.uid) == 0 else { throw .cannotSwitch(store: path, owner: owner.description, call: "setuid", errno: errno) }
        Console.error("attach: running as \(owner), the owner of \(path), so the files this command writes stay the service's")
    }

    /// Refuses to serve, as root, a store another user owns.
    /// - Throws: ``StoreOwnerError/serveAsRoot(store:owner:)``.
    static func refuseRootServing(_ store: URL) throws(StoreOwnerError) {
        guard let owner = foreignOwner(of: store) else { return }
        throw .serveAsRoot(store: shownPath(store), owner: owner.description)
    }

    /// The store's path as a person wrote it: no trailing slash.
    private static func shownPath(_ store: URL) -> String {
        let path = store.path(percentEncoded: false)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }
}

/// Why a command could not work on a store as its owner.
enum StoreOwnerError: Error, CustomStringConvertible, Equatable {
    /// Switching to the store's owner failed at `call`.
    case cannotSwitch(store: String, owner: String, call: String, errno: Int32)
    /// `attach serve` was started as root on a store another user owns.
    case serveAsRoot(store: String, owner: String)

    var description: String {
        switch self {
        case .cannotSwitch(let store, let owner, let call, let code):
            "cannot become \(owner), the owner of \(store) (\(call): \(String(cString: strerror(code)))); nothing was opened. "
                + "Run the command as that user (sudo -u USER attach …)"
        case .serveAsRoot(let store, let owner):
            "\(store) belongs to \(owner); serving it as root would leave files that user cannot read. "
                + "Run attach serve as that user (the systemd unit does: User=)"
        }
    }
}
