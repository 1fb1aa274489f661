import Logging
import ServiceLifecycle

/// The first thing a stopping server does: it says so (`/health/ready` turns 503, systemd hears
/// `STOPPING=1`), then keeps serving for `delay` so a load balancer that polls readiness stops
/// sending it new requests before it closes its listening socket.
///
/// It runs after the application in ``AttachmentServer/run(_:)``'s service group, which stops
/// services in reverse order: this one ends first, then the application drains.
struct DrainNoticeService: Service {
    let readiness: ServerReadiness
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        readiness.beginDraining()
        SystemdNotifier.notify("STOPPING=1")
        guard delay > .zero else { return }
        logger.info("draining: /health/ready answers 503; stopping in \(delay)")
        // A second SIGTERM does not cut the delay short (the service group acts on the first);
        // SIGKILL does, which systemd sends after the unit's TimeoutStopSec (90 s): keep the
        // delay well below it.
        try? await Task.sleep(for: delay)
    }
}
