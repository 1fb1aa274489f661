"""Schemathesis hooks for Tests/e2e/fuzz_api.sh: a tus PATCH body (application/offset+octet-stream)
is raw bytes, sent as application/octet-stream bytes are; a notes list's generated `sort` follows
its `after` cursor's order."""
import schemathesis

schemathesis.serializer.alias("application/offset+octet-stream", "application/octet-stream")


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    """A notes list's `after` cursor carries the order it was made in, and `sort` must name that
    order when both are sent (400 `bad_cursor` otherwise, as a mixed-up client should hear). The
    document cannot say one parameter depends on another, so a generated `sort` follows the
    cursor's order here, in every phase: the request stays one the server must take."""
    query = case.query
    if isinstance(query, dict) and isinstance(query.get("after"), str) and query.get("sort") in ("updated", "created", "title"):
        after = query["after"]
        order = "created" if after.startswith("c") else "title" if after.startswith("t") else "updated"
        query["sort"] = order
