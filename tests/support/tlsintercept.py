"""HTTPS through a loopback proxy: a throwaway certificate authority that signs a certificate for any host on demand.

Recorded publisher pages are https URLs. A client configured with the loopback server as its proxy opens a tunnel with
``CONNECT host:443``; the server answers it, then speaks TLS inside the tunnel with a certificate for ``host`` signed by
this CA, and serves the requests that follow like any other. The client trusts the CA through its CA-bundle setting, so
certificate checking stays on and the URLs the fetcher sees are the real https ones.
"""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import tempfile
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_DAY = datetime.timedelta(days=1)


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


class TlsInterceptor:
    """A CA (its PEM file is :attr:`ca_file`) and a server-side SSL context per host name, made when first asked."""

    def __init__(self) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="pubfetch-tls-")
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = datetime.datetime.now(datetime.UTC)
        self._ca = (
            x509.CertificateBuilder().subject_name(_name("pubfetch test CA")).issuer_name(_name("pubfetch test CA"))
            .public_key(self._key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _DAY).not_valid_after(now + _DAY)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .sign(self._key, hashes.SHA256())
        )
        self.ca_file = str(Path(self._dir.name) / "ca.pem")
        Path(self.ca_file).write_bytes(self._ca.public_bytes(serialization.Encoding.PEM))
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    def context(self, host: str) -> ssl.SSLContext:
        """A server context presenting a certificate for ``host`` (a DNS name or an IP address)."""
        host = host.lower()
        with self._lock:
            if host not in self._contexts:
                self._contexts[host] = self._make_context(host)
            return self._contexts[host]

    def _make_context(self, host: str) -> ssl.SSLContext:
        key = ec.generate_private_key(ec.SECP256R1())
        try:
            alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
        except ValueError:
            alt = x509.DNSName(host)
        now = datetime.datetime.now(datetime.UTC)
        cert = (
            x509.CertificateBuilder().subject_name(_name(host)).issuer_name(self._ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - _DAY).not_valid_after(now + _DAY)
            .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .sign(self._key, hashes.SHA256())
        )
        stem = Path(self._dir.name) / host.replace(":", "_")
        cert_file, key_file = stem.with_suffix(".crt"), stem.with_suffix(".key")
        cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_file, key_file)
        return context

    def close(self) -> None:
        self._dir.cleanup()
