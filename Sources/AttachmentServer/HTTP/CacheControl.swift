/// The `Cache-Control` values of answers that may be kept, in one place.
///
/// Store content (originals, thumbnails, blobs) is always `private`: behind a token it must not
/// be kept by a shared cache (a proxy or CDN in front would hand it to anyone who asks), and on
/// an open server, which listens on loopback only, no shared cache sits in front to gain from
/// `public`. One rule, so adding a token later cannot leave a cache holding public copies.
enum CacheControl {
    /// Content addressed by its hash (`?v=` naming the current one, or a blob's own hash): kept
    /// for a year without revalidation, by the client alone.
    static let immutablePrivate = "private, max-age=31536000, immutable"
    /// The same for a file anyone may fetch without credentials (the login page's own files),
    /// which a shared cache may keep.
    static let immutablePublic = "public, max-age=31536000, immutable"
    /// Kept, but asked about again before each use.
    static let revalidate = "no-cache"
}
