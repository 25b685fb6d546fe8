package token

import (
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
)

// PEM block types of the key files: those of PKCS #8 and PKIX, which
// OpenSSL and most tools read (openssl pkey -in signing.pem -text).
const (
	pemPrivate = "PRIVATE KEY"
	pemPublic  = "PUBLIC KEY"
)

// MarshalPrivateKey encodes an Ed25519 signing key for a backend's config
// file: PEM of PKCS #8 ("PRIVATE KEY"), as openssl genpkey -algorithm
// ed25519 writes it. Keep the file readable by the backend only.
func MarshalPrivateKey(key ed25519.PrivateKey) ([]byte, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fail(ErrInvalid, "invalid: private key of %d bytes, not an Ed25519 private key (%d)", len(key), ed25519.PrivateKeySize)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: private key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPrivate, Bytes: der}), nil
}

// ParsePrivateKey decodes an Ed25519 signing key written by
// [MarshalPrivateKey] (or openssl genpkey -algorithm ed25519). The first PEM
// block must be a PKCS #8 private key, and an Ed25519 one; anything after it
// is ignored.
func ParsePrivateKey(b []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fail(ErrInvalid, "invalid: private key: no PEM block")
	}
	if block.Type != pemPrivate {
		return nil, fail(ErrInvalid, "invalid: private key: PEM block %q, not %q", block.Type, pemPrivate)
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: private key: %v", err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		return nil, fail(ErrInvalid, "invalid: private key: a %T, not an Ed25519 key", k)
	}
	return key, nil
}

// MarshalPublicKey encodes an Ed25519 public key for a game server's config
// file: PEM of PKIX ("PUBLIC KEY"), as openssl pkey -pubout writes it. It is
// not secret.
func MarshalPublicKey(key ed25519.PublicKey) ([]byte, error) {
	if len(key) != ed25519.PublicKeySize {
		return nil, fail(ErrInvalid, "invalid: public key of %d bytes, not an Ed25519 public key (%d)", len(key), ed25519.PublicKeySize)
	}
	der, err := x509.MarshalPKIXPublicKey(key)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: public key: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemPublic, Bytes: der}), nil
}

// ParsePublicKey decodes an Ed25519 public key written by
// [MarshalPublicKey] (or openssl pkey -pubout). The first PEM block must be
// a PKIX public key, and an Ed25519 one; anything after it is ignored.
func ParsePublicKey(b []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fail(ErrInvalid, "invalid: public key: no PEM block")
	}
	if block.Type != pemPublic {
		return nil, fail(ErrInvalid, "invalid: public key: PEM block %q, not %q", block.Type, pemPublic)
	}
	k, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		return nil, fail(ErrInvalid, "invalid: public key: %v", err)
	}
	key, ok := k.(ed25519.PublicKey)
	if !ok {
		return nil, fail(ErrInvalid, "invalid: public key: a %T, not an Ed25519 key", k)
	}
	return key, nil
}
