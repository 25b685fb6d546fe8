// Command tokens issues development connect tokens (package token) and
// checks them as a game server would: a key pair for a development backend,
// tokens for a local server, and the verdict on a token.
//
//	go run ./examples/tokens keygen -dir keys
//	go run ./examples/tokens issue -key keys/signing.pem -server 127.0.0.1:7777 -client 42
//	go run ./examples/tokens verify -pub keys/verify.pem -server 127.0.0.1:7777 TOKEN
//	go run ./examples/tokens help
//
// keygen writes signing.pem (the Ed25519 private key, mode 0600: the
// backend's) and verify.pem (its public key: the game servers'), both PEM
// that OpenSSL reads. issue prints a token as base64url on stdout, and its
// fields on stderr. verify prints the token's fields if a game server at the
// given address would admit it, or why not (exit status 1). Each verify is a
// fresh server: it cannot tell a replay.
//
// For development only: a production backend keeps its signing key in a
// secret store and issues tokens from its own service, over HTTPS, as the
// token package's documentation describes.
package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/netsmooth/netsmooth/token"
)

const usage = `usage:
  tokens keygen -dir DIR
      write DIR/signing.pem (private, 0600) and DIR/verify.pem (public)
  tokens issue -key DIR/signing.pem -server HOST:PORT [-server ...] -client ID
               [-protocol N] [-key-id N] [-ttl 30s] [-spectator] [-user TEXT]
      print a token (base64url) on stdout
  tokens verify -pub DIR/verify.pem -server HOST:PORT [-server ...]
               [-protocol N] [-key-id N] TOKEN|-
      print the token's fields, or why a server at HOST:PORT refuses it
      (TOKEN - reads the token from stdin)
Run tokens COMMAND -h for a command's flags.
`

// errUsage reports a command line that names no known command; the usage
// has been printed.
var errUsage = errors.New("unknown command")

func main() {
	err := run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	switch {
	case err == nil:
	case errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "tokens:", err)
		os.Exit(1)
	}
}

// run runs the command line args (without the program name).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return errUsage
	}
	switch args[0] {
	case "keygen":
		return keygen(args[1:], stdout, stderr)
	case "issue":
		return issue(args[1:], stdout, stderr)
	case "verify":
		return verify(args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprintf(stderr, "tokens: unknown command %q\n%s", args[0], usage)
	return errUsage
}

// servers is a repeatable -server flag.
type servers []string

func (s *servers) String() string { return strings.Join(*s, ",") }
func (s *servers) Set(v string) error {
	*s = append(*s, v)
	return nil
}

func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tokens "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

func keygen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("keygen", stderr)
	dir := fs.String("dir", "", "directory for signing.pem and verify.pem (created if missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() > 0 {
		return errors.New("keygen: want -dir DIR and no arguments")
	}
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		return err
	}
	privPEM, err := token.MarshalPrivateKey(priv)
	if err != nil {
		return err
	}
	pubPEM, err := token.MarshalPublicKey(pub)
	if err != nil {
		return err
	}
	signing, verifying := filepath.Join(*dir, "signing.pem"), filepath.Join(*dir, "verify.pem")
	for _, p := range []string{signing, verifying} {
		if _, err := os.Stat(p); err == nil {
			return fmt.Errorf("keygen: %s exists; not overwriting a key", p)
		}
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return err
	}
	if err := writeNew(signing, privPEM, 0o600); err != nil {
		return err
	}
	if err := writeNew(verifying, pubPEM, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (private: the backend's only)\nwrote %s (public: for game servers)\n", signing, verifying)
	return nil
}

// writeNew writes b to a new file at path with mode perm, failing if the
// file exists.
func writeNew(path string, b []byte, perm os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func issue(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("issue", stderr)
	keyFile := fs.String("key", "", "the backend's signing key (signing.pem from keygen)")
	var addrs servers
	fs.Var(&addrs, "server", "a server address the token admits to, host:port as clients dial it (repeatable, 1 to 8)")
	client := fs.Uint64("client", 0, "the player's ClientID (not 0)")
	protocol := fs.Uint64("protocol", 0, "the game's ProtocolID")
	keyID := fs.Uint("key-id", 1, "the signing key's KeyID")
	ttl := fs.Duration("ttl", token.DefaultLifetime, "the token's lifetime (verifiers accept at most 5m by default)")
	spectator := fs.Bool("spectator", false, "grant spectating only")
	user := fs.String("user", "", "public user data (display name, team...)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *keyFile == "" || fs.NArg() > 0 {
		return errors.New("issue: want -key FILE and no arguments")
	}
	if *keyID > 1<<32-1 {
		return fmt.Errorf("issue: -key-id %d is more than 32 bits", *keyID)
	}
	pemBytes, err := os.ReadFile(*keyFile)
	if err != nil {
		return err
	}
	priv, err := token.ParsePrivateKey(pemBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", *keyFile, err)
	}
	is, err := token.NewIssuer(token.IssuerConfig{SigningKey: priv, KeyID: uint32(*keyID), ProtocolID: *protocol, Lifetime: *ttl})
	if err != nil {
		return err
	}
	r := token.Request{ClientID: *client, Servers: addrs, Spectator: *spectator}
	if *user != "" {
		r.UserData = []byte(*user)
	}
	b, err := is.Issue(r)
	if err != nil {
		return err
	}
	t, err := token.ParseUnverified(b)
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, t.String())
	fmt.Fprintln(stdout, token.EncodeString(b))
	return nil
}

func verify(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("verify", stderr)
	pubFile := fs.String("pub", "", "the backend's public key (verify.pem from keygen)")
	var addrs servers
	fs.Var(&addrs, "server", "this server's public address, host:port (repeatable)")
	protocol := fs.Uint64("protocol", 0, "this server's ProtocolID")
	keyID := fs.Uint("key-id", 1, "the public key's KeyID")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *pubFile == "" || fs.NArg() != 1 {
		return errors.New("verify: want -pub FILE and one TOKEN argument (- for stdin)")
	}
	if *keyID > 1<<32-1 {
		return fmt.Errorf("verify: -key-id %d is more than 32 bits", *keyID)
	}
	text := fs.Arg(0)
	if text == "-" {
		in, err := io.ReadAll(io.LimitReader(stdin, 1<<16))
		if err != nil {
			return err
		}
		text = string(in)
	}
	pemBytes, err := os.ReadFile(*pubFile)
	if err != nil {
		return err
	}
	pub, err := token.ParsePublicKey(pemBytes)
	if err != nil {
		return fmt.Errorf("%s: %w", *pubFile, err)
	}
	v, err := token.NewVerifier(token.VerifierConfig{
		Keys:       map[uint32]ed25519.PublicKey{uint32(*keyID): pub},
		ProtocolID: *protocol,
		Addrs:      addrs,
	})
	if err != nil {
		return err
	}
	b, err := token.ParseString(text)
	if err != nil {
		return err
	}
	now := time.Now()
	t, err := v.Verify(b, now)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "valid token\n")
	fmt.Fprintf(stdout, "  id         %x\n", t.ID)
	fmt.Fprintf(stdout, "  client     %d\n", t.ClientID)
	fmt.Fprintf(stdout, "  protocol   %d\n", t.ProtocolID)
	fmt.Fprintf(stdout, "  key        %d\n", t.KeyID)
	fmt.Fprintf(stdout, "  servers    %s\n", strings.Join(t.Servers, " "))
	fmt.Fprintf(stdout, "  issued     %s\n", t.IssuedAt.UTC().Format(time.RFC3339))
	fmt.Fprintf(stdout, "  expires    %s (in %s)\n", t.Expires.UTC().Format(time.RFC3339), t.Expires.Sub(now).Round(time.Second))
	fmt.Fprintf(stdout, "  spectator  %v\n", t.Spectator)
	fmt.Fprintf(stdout, "  user data  %q\n", t.UserData)
	return nil
}
