package token

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
)

func TestKeys(t *testing.T) {
	privPEM, err := MarshalPrivateKey(priv1)
	if err != nil {
		t.Fatal(err)
	}
	pubPEM, err := MarshalPublicKey(pub1)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(privPEM), "-----BEGIN PRIVATE KEY-----\n") ||
		!strings.HasPrefix(string(pubPEM), "-----BEGIN PUBLIC KEY-----\n") {
		t.Fatalf("not PEM:\n%s%s", privPEM, pubPEM)
	}
	priv, err := ParsePrivateKey(privPEM)
	if err != nil || !bytes.Equal(priv, priv1) {
		t.Fatalf("private key: %v", err)
	}
	pub, err := ParsePublicKey(append(append([]byte("comment\n"), pubPEM...), "trailer"...))
	if err != nil || !bytes.Equal(pub, pub1) {
		t.Fatalf("public key: %v", err)
	}

	// The same key as OpenSSL writes it (openssl genpkey -algorithm ed25519
	// with this seed; openssl pkey -pubout).
	const opensslPriv = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIAEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEB\n-----END PRIVATE KEY-----\n"
	if priv, err := ParsePrivateKey([]byte(opensslPriv)); err != nil || !bytes.Equal(priv, priv1) {
		t.Fatalf("OpenSSL's private key: %v", err)
	}

	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecPriv, _ := x509.MarshalPKCS8PrivateKey(ec)
	ecPub, _ := x509.MarshalPKIXPublicKey(&ec.PublicKey)
	block := func(typ string, b []byte) []byte { return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}) }
	for _, c := range []struct {
		b   []byte
		msg string
	}{
		{nil, "token: invalid: private key: no PEM block"},
		{pubPEM, `token: invalid: private key: PEM block "PUBLIC KEY", not "PRIVATE KEY"`},
		{block("PRIVATE KEY", ecPriv), "token: invalid: private key: a *ecdsa.PrivateKey, not an Ed25519 key"},
		{block("PRIVATE KEY", []byte("junk")), ""},
	} {
		_, err := ParsePrivateKey(c.b)
		wantErr(t, err, ErrInvalid, c.msg)
	}
	for _, c := range []struct {
		b   []byte
		msg string
	}{
		{[]byte("no pem"), "token: invalid: public key: no PEM block"},
		{privPEM, `token: invalid: public key: PEM block "PRIVATE KEY", not "PUBLIC KEY"`},
		{block("PUBLIC KEY", ecPub), "token: invalid: public key: a *ecdsa.PublicKey, not an Ed25519 key"},
		{block("PUBLIC KEY", []byte("junk")), ""},
	} {
		_, err := ParsePublicKey(c.b)
		wantErr(t, err, ErrInvalid, c.msg)
	}
	_, err = MarshalPrivateKey(priv1[:10])
	wantErr(t, err, ErrInvalid, "token: invalid: private key of 10 bytes, not an Ed25519 private key (64)")
	_, err = MarshalPublicKey(pub1[:10])
	wantErr(t, err, ErrInvalid, "token: invalid: public key of 10 bytes, not an Ed25519 public key (32)")
}
