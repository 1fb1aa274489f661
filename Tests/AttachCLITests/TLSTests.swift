import Foundation
import Testing
import TestSupport

@Suite("TLS: attach serve over HTTPS, peers over https://", .serialized, .timeLimit(.minutes(3)))
struct TLSTests {
    @Test("attach serve --tls-cert/--tls-key answers curl --cacert over HTTPS; plain HTTP and an untrusting client get nothing")
    func serverSpeaksTLS() async throws {
        let directory = try TemporaryDirectory("tls-serve")
        let tls = try await TestCertificate(in: directory)
        let port = try ServerProcess.freePort()
        let server = try await ServerProcess(store: directory.appending("store"), port: port,
                                             ["--tls-cert", tls.certificate, "--tls-key", tls.key, "--token", "tls-token"])
        defer { server.process.kill(SIGKILL) }
        #expect(server.process.stdoutSoFar.contains("on https://127.0.0.1:\(port)"))

        let verified = try await ChildProcess.run("/usr/bin/curl", [
            "-sS", "--cacert", tls.certificate, "-H", "Authorization: Bearer tls-token", "https://127.0.0.1:\(port)/api/notes",
        ])
        #expect(verified.exitCode == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("\"notes\""))
        let login = try await ChildProcess.run("/usr/bin/curl", [
            "-sS", "-i", "--cacert", tls.certificate, "-d", "token=tls-token", "https://127.0.0.1:\(port)/login",
        ])
        #expect(login.stdout.lowercased().contains("set-cookie: attach_session="))
        #expect(login.stdout.contains("; Secure"), "the session cookie is Secure over TLS")

        let untrusted = try await ChildProcess.run("/usr/bin/curl", ["-sS", "https://127.0.0.1:\(port)/health"])
        #expect(untrusted.exitCode != 0, "a client that does not trust the certificate is refused the handshake")
        let plain = try await ChildProcess.run("/usr/bin/curl", ["-sS", "-m", "5", "http://127.0.0.1:\(port)/health"])
        #expect(plain.exitCode != 0 || !plain.stdout.contains("ok"), "plain HTTP gets no answer from a TLS port")
    }

    @Test("attach serve refuses an unreadable certificate or key with a message naming the file")
    func badCertificateFilesAreRefused() async throws {
        let directory = try TemporaryDirectory("tls-bad")
        let tls = try await TestCertificate(in: directory)
        let garbage = directory.appending("garbage.pem")
        try Data("not a certificate".utf8).write(to: garbage)
        let outcome = try await Attach.run(["serve", "--port", "0", "--tls-cert", garbage.path(percentEncoded: false), "--tls-key", tls.key],
                                           store: directory.appending("store"))
        #expect(outcome.exitCode != 0)
        #expect(outcome.stderr.contains("garbage.pem"), "\(outcome.stderr)")
        let half = try await Attach.run(["serve", "--port", "0", "--tls-cert", tls.certificate], store: directory.appending("store"))
        #expect(half.exitCode != 0 && half.stderr.contains("--tls-key"))
    }

    @Test("a peer over https:// with a private CA: records pull and bytes fetch with --peer-ca, and nothing without it")
    func peerOverTLS() async throws {
        let directory = try TemporaryDirectory("tls-peer")
        let tls = try await TestCertificate(in: directory)
        let (peerStore, localStore) = (directory.appending("peer"), directory.appending("local"))
        try await Attach.initStore(peerStore)
        let note = try await Attach.addNote("over TLS", store: peerStore)
        let photo = try Corpus.file("special/baseline.jpg")
        #expect(try await Attach.run(["import", "--note", note, photo.path(percentEncoded: false)], store: peerStore).exitCode == 0)
        let port = try ServerProcess.freePort()
        let peer = try await ServerProcess(store: peerStore, port: port,
                                           ["--tls-cert", tls.certificate, "--tls-key", tls.key, "--token", "full", "--sync-token", "peer"])
        defer { peer.process.kill(SIGKILL) }
        let url = "https://127.0.0.1:\(port)"
        try await Attach.initStore(localStore)

        let untrusting = try await Attach.run(["sync", "pull", url, "--token", "peer"], store: localStore)
        #expect(untrusting.exitCode != 0, "the system's roots do not trust a private CA")
        #expect(untrusting.stderr.contains("its TLS certificate is signed by no authority this machine trusts; give the CA that signed its certificate with --peer-ca FILE"),
                "the library says what is wrong, the command line what to pass: \(untrusting.stderr)")
        let wrongToken = try await Attach.run(["sync", "pull", url, "--token", "not-the-token", "--peer-ca", tls.certificate], store: localStore)
        #expect(wrongToken.exitCode != 0)
        #expect(wrongToken.stderr.contains("answered 401") && wrongToken.stderr.contains("; give the peer its own token with --token"), "\(wrongToken.stderr)")
        #expect(try await Attach.run(["list", "--json"], store: localStore).stdout.contains("baseline") == false)

        let pulled = try await Attach.run(["sync", "pull", url, "--token", "peer", "--peer-ca", tls.certificate], store: localStore)
        #expect(pulled.exitCode == 0, "\(pulled.stderr)")
        let fetched = try await Attach.run(["fetch", "--all", "--peer", url, "--token", "peer", "--peer-ca", tls.certificate], store: localStore)
        #expect(fetched.exitCode == 0, "\(fetched.stderr)")
        let hash = try Files.sha256(photo)
        let blob = localStore.appending(path: "blobs/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)")
        #expect(try Files.sha256(blob) == hash, "the bytes arrived over TLS, verified")
    }
}
