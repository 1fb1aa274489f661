#!/usr/bin/env python3
"""Talks to the S3 store of s3.sh the way the project's client does: AWS Signature V4,
path-style URLs, region from the environment. Python standard library only.

    s3_check.py bucket   create bucket S3_BUCKET when missing and prove it with signed
                         requests (s3.sh start runs this before it reports success)
    s3_check.py suite    the selftest: put/get, ranged get, multipart, list, delete, wrong
                         secret; prints one "PASS name" / "FAIL name" line per check

Reads S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET and S3_REGION from the
environment (the lines `s3.sh env DIR` prints). Exits non-zero when a check fails.
"""
import datetime
import hashlib
import hmac
import http.client
import os
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET

MiB = 1024 * 1024
EMPTY_SHA256 = hashlib.sha256(b"").hexdigest()


def _quote(text, safe):
    return urllib.parse.quote(text, safe=safe)


class S3:
    """A minimal S3 client: signs each request with SigV4 and sends it over one HTTP hop."""

    def __init__(self, endpoint, access_key, secret_key, region, bucket):
        url = urllib.parse.urlsplit(endpoint)
        if url.scheme != "http" or not url.hostname:
            raise SystemExit("S3_ENDPOINT must look like http://HOST:PORT, got %r" % endpoint)
        self.host, self.port = url.hostname, url.port or 80
        self.host_header = url.netloc
        self.access_key, self.secret_key = access_key, secret_key
        self.region, self.bucket = region, bucket

    def _signing_key(self, day):
        key = ("AWS4" + self.secret_key).encode()
        for part in (day, self.region, "s3", "aws4_request"):
            key = hmac.new(key, part.encode(), hashlib.sha256).digest()
        return key

    def request(self, method, key=None, query=None, body=b"", headers=None, bucket=None):
        """Returns (status, headers as a lower-cased dict, body bytes)."""
        bucket = self.bucket if bucket is None else bucket
        path = "/" + _quote(bucket, "")
        if key is not None:
            path += "/" + _quote(key, "/")
        pairs = sorted((_quote(k, "~"), _quote(v, "~")) for k, v in (query or {}).items())
        canonical_query = "&".join("%s=%s" % kv for kv in pairs)

        now = datetime.datetime.now(datetime.timezone.utc)
        stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
        payload_hash = hashlib.sha256(body).hexdigest() if body else EMPTY_SHA256
        send = {"Host": self.host_header, "X-Amz-Date": stamp,
                "X-Amz-Content-Sha256": payload_hash}
        send.update(headers or {})
        signed = {k.lower(): " ".join(str(v).split()) for k, v in send.items()
                  if k.lower() in ("host", "content-type", "content-md5")
                  or k.lower().startswith("x-amz-")}
        names = ";".join(sorted(signed))
        canonical = "\n".join([
            method, path, canonical_query,
            "".join("%s:%s\n" % (k, signed[k]) for k in sorted(signed)),
            names, payload_hash])
        scope = "/".join([day, self.region, "s3", "aws4_request"])
        to_sign = "\n".join(["AWS4-HMAC-SHA256", stamp, scope,
                             hashlib.sha256(canonical.encode()).hexdigest()])
        signature = hmac.new(self._signing_key(day), to_sign.encode(), hashlib.sha256).hexdigest()
        send["Authorization"] = "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s" % (
            self.access_key, scope, names, signature)

        target = path + ("?" + canonical_query if canonical_query else "")
        conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            conn.request(method, target, body=body if body or method in ("PUT", "POST") else None,
                         headers=send)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
        finally:
            conn.close()


def xml_texts(body, tag):
    """Every text of elements named tag (any namespace) in an XML body."""
    try:
        root = ET.fromstring(body)
    except ET.ParseError:
        return []
    return [el.text or "" for el in root.iter() if el.tag.split("}")[-1] == tag]


def error_code(body):
    codes = xml_texts(body, "Code") if body else []
    return codes[0] if codes else ""


def said(status, body=b""):
    """'HTTP 403 SignatureDoesNotMatch', or just 'HTTP 200'."""
    code = error_code(body)
    return "HTTP %d%s" % (status, " " + code if code else "")


def client_from_env(secret=None):
    env = os.environ
    missing = [k for k in ("S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET",
                           "S3_REGION") if not env.get(k)]
    if missing:
        raise SystemExit("s3_check.py: missing environment: " + " ".join(missing))
    return S3(env["S3_ENDPOINT"], env["S3_ACCESS_KEY"], secret or env["S3_SECRET_KEY"],
              env["S3_REGION"], env["S3_BUCKET"])


# --- bucket: readiness probe for s3.sh -----------------------------------------------------

def healthy(s3):
    conn = http.client.HTTPConnection(s3.host, s3.port, timeout=5)
    try:
        conn.request("GET", "/healthcheck")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def ensure_bucket(s3, timeout=60.0):
    deadline = time.monotonic() + timeout
    while not healthy(s3):
        if time.monotonic() > deadline:
            print("s3_check.py: /healthcheck never answered 200", file=sys.stderr)
            return 1
        time.sleep(0.2)
    last = ""
    while True:
        try:
            status, _, body = s3.request("PUT", bucket=s3.bucket)
            # 409: BucketAlreadyOwnedByYou / BucketAlreadyExists — it is there already.
            if status in (200, 409):
                status, _, body = s3.request("HEAD", bucket=s3.bucket)
                if status == 200:
                    return 0
            last = "HTTP %d %s" % (status, error_code(body) or body[:200])
            if status in (400, 401, 403):  # a signature or auth problem will not go away
                break
        except OSError as exc:
            last = repr(exc)
        if time.monotonic() > deadline:
            break
        time.sleep(0.3)
    print("s3_check.py: bucket %s is not usable: %s" % (s3.bucket, last), file=sys.stderr)
    return 1


# --- suite: the selftest -----------------------------------------------------------------

class Suite:
    def __init__(self):
        self.failed = 0

    def check(self, name, ok, detail=""):
        print("%s s3: %s%s" % ("PASS" if ok else "FAIL", name, " (%s)" % detail if detail else ""),
              flush=True)
        if not ok:
            self.failed += 1


def run_suite():
    s3 = client_from_env()
    t = Suite()
    prefix = "selftest-%s/" % os.urandom(4).hex()

    def timed(fn, *args, **kwargs):
        t0 = time.monotonic()
        result = fn(*args, **kwargs)
        return result, time.monotonic() - t0

    # A plain object of a few MB, read back byte for byte.
    small = os.urandom(3 * MiB + 517)
    key = prefix + "photo one.bin"  # a space, to exercise the URI encoding of the signature
    (status, headers, _), dt = timed(s3.request, "PUT", key, body=small,
                                     headers={"Content-Type": "application/octet-stream"})
    etag = headers.get("etag", "").strip('"')
    t.check("put 3 MiB object", status == 200 and etag == hashlib.md5(small).hexdigest(),
            "HTTP %d, ETag %s, %.2f s" % (status, etag, dt))
    (status, headers, body), dt = timed(s3.request, "GET", key)
    t.check("get it back byte-identical", status == 200 and body == small,
            "HTTP %d, %d bytes, %.2f s" % (status, len(body), dt))

    status, headers, body = s3.request("GET", key, headers={"Range": "bytes=1000000-1999999"})
    t.check("ranged get bytes=1000000-1999999", status == 206 and body == small[1000000:2000000]
            and headers.get("content-range") == "bytes 1000000-1999999/%d" % len(small),
            "HTTP %d, Content-Range %s" % (status, headers.get("content-range")))
    status, _, body = s3.request("GET", key, headers={"Range": "bytes=-100"})
    t.check("ranged get bytes=-100 (suffix)", status == 206 and body == small[-100:], "HTTP %d" % status)

    # Multipart: two parts of at least 5 MiB, completed, read back.
    big = os.urandom(10 * MiB + 4321)
    parts = [big[:5 * MiB], big[5 * MiB:]]
    mkey = prefix + "multipart.bin"
    status, _, body = s3.request("POST", mkey, query={"uploads": ""},
                                 headers={"Content-Type": "image/jpeg"})
    upload_ids = xml_texts(body, "UploadId")
    ok = status == 200 and len(upload_ids) == 1
    t.check("multipart: initiate", ok, said(status, body))
    if ok:
        upload_id, etags = upload_ids[0], []
        t0 = time.monotonic()
        for number, data in enumerate(parts, 1):
            status, headers, body = s3.request(
                "PUT", mkey, query={"partNumber": str(number), "uploadId": upload_id}, body=data)
            etags.append(headers.get("etag", ""))
            t.check("multipart: upload part %d (%d bytes)" % (number, len(data)),
                    status == 200 and etags[-1].strip('"') == hashlib.md5(data).hexdigest(),
                    said(status, body))
        manifest = "<CompleteMultipartUpload>%s</CompleteMultipartUpload>" % "".join(
            "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>" % (n, e)
            for n, e in enumerate(etags, 1))
        status, _, body = s3.request("POST", mkey, query={"uploadId": upload_id},
                                     body=manifest.encode(),
                                     headers={"Content-Type": "application/xml"})
        # S3 may answer 200 and still put an <Error> in the body.
        t.check("multipart: complete", status == 200 and not error_code(body)
                and xml_texts(body, "ETag"), "%s, %.2f s" % (
                    said(status, body), time.monotonic() - t0))
        expected = hashlib.md5(b"".join(bytes.fromhex(e.strip('"')) for e in etags)).hexdigest() + "-2"
        status, headers, body = s3.request("GET", mkey)
        t.check("multipart: read back byte-identical", status == 200 and body == big
                and headers.get("etag", "").strip('"') == expected,
                "HTTP %d, %d bytes, ETag %s" % (status, len(body), headers.get("etag")))
        status, _, body = s3.request("GET", mkey, headers={
            "Range": "bytes=%d-%d" % (5 * MiB - 10, 5 * MiB + 9)})
        t.check("multipart: ranged get across the part boundary",
                status == 206 and body == big[5 * MiB - 10:5 * MiB + 10], "HTTP %d" % status)

    # Listing with a prefix.
    status, _, body = s3.request("GET", query={"list-type": "2", "prefix": prefix}, bucket=s3.bucket)
    keys = sorted(xml_texts(body, "Key"))
    t.check("list with prefix", status == 200 and keys == sorted([key, mkey]),
            "HTTP %d, keys %s" % (status, keys))
    status, _, body = s3.request("GET", query={"list-type": "2", "prefix": prefix + "none/"},
                                 bucket=s3.bucket)
    t.check("list with a prefix that matches nothing", status == 200 and not xml_texts(body, "Key"),
            "HTTP %d" % status)

    # Delete, then the key is gone.
    results = [s3.request("DELETE", k)[0] for k in (key, mkey)]
    status, _, body = s3.request("GET", key)
    t.check("delete (204), then get is 404", results == [204, 204] and status == 404
            and error_code(body) == "NoSuchKey", "DELETE %s, GET %d %s" % (
                results, status, error_code(body)))

    # A wrong secret is refused and writes nothing.
    wrong = client_from_env(secret="0" * 40)
    bad_key = prefix + "must-not-exist"
    status, _, body = wrong.request("PUT", bad_key, body=b"forged")
    t.check("wrong secret: put refused with 403", status == 403,
            said(status, body))
    status, _, body = wrong.request("GET", query={"list-type": "2"}, bucket=s3.bucket)
    t.check("wrong secret: list refused with 403", status == 403,
            said(status, body))
    status, _, _ = s3.request("HEAD", bad_key)
    t.check("wrong secret: nothing was written", status == 404, "HEAD %d" % status)

    status, _, body = s3.request("GET", query={"list-type": "2", "prefix": prefix}, bucket=s3.bucket)
    left = xml_texts(body, "Key")
    t.check("bucket left clean", status == 200 and not left, "left %s" % left)
    return 1 if t.failed else 0


def main(argv):
    if len(argv) != 2 or argv[1] not in ("bucket", "suite"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    if argv[1] == "bucket":
        return ensure_bucket(client_from_env())
    return run_suite()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
