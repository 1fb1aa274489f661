"""Schemathesis hooks for Tests/e2e/fuzz_api.sh: a tus PATCH body (application/offset+octet-stream)
is raw bytes, sent as application/octet-stream bytes are."""
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")
