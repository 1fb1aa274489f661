import Testing

/// Guards against the live S3 tests being skipped silently under `make test`.
@Suite("S3 services required")
struct RequiredServicesTests {
    @Test("when ATTACH_REQUIRE_SERVICES=1, the S3 server's environment is present")
    func s3EnvironmentPresentWhenRequired() {
        guard S3TestEnvironment.servicesRequired else { return }
        #expect(S3TestEnvironment.isAvailable, """
            ATTACH_REQUIRE_SERVICES=1 but S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY or S3_BUCKET is missing: \
            the live S3 tests would be skipped. Run them through `make test` (scripts/with-services.sh).
            """)
    }
}
