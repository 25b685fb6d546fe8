package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/netsmooth/netsmooth/token"
)

// TestMain runs the command itself when the test binary is started as it
// (see command), so that tests also see its exit status and output as a
// shell would.
func TestMain(m *testing.M) {
	if os.Getenv("TOKENS_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command runs the command as a process with args and stdin, and returns its
// stdout, stderr and exit status.
func command(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TOKENS_TEST_MAIN=1")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), cmd.ProcessState.ExitCode()
}

// runOK runs the command in-process and returns its stdout and stderr,
// failing t on error.
func runOK(t *testing.T, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(args, strings.NewReader(""), &out, &errOut); err != nil {
		t.Fatalf("tokens %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String(), errOut.String()
}

// keygen, issue and verify, as a developer runs them.
func TestKeygenIssueVerify(t *testing.T) {
	dir := t.TempDir()
	out, _, code := command(t, "", "keygen", "-dir", dir)
	if code != 0 || !strings.Contains(out, "signing.pem") {
		t.Fatalf("keygen: exit %d, %q", code, out)
	}
	signing, verifying := filepath.Join(dir, "signing.pem"), filepath.Join(dir, "verify.pem")
	st, err := os.Stat(signing)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("signing.pem: %v, %v", st.Mode(), err)
	}
	pemBytes, _ := os.ReadFile(signing)
	if _, err := token.ParsePrivateKey(pemBytes); err != nil {
		t.Fatal(err)
	}
	pemBytes, _ = os.ReadFile(verifying)
	if _, err := token.ParsePublicKey(pemBytes); err != nil {
		t.Fatal(err)
	}
	// Never overwrites a key.
	if _, stderr, code := command(t, "", "keygen", "-dir", dir); code != 1 || !strings.Contains(stderr, "exists; not overwriting") {
		t.Fatalf("keygen again: exit %d, %q", code, stderr)
	}

	out, stderr, code := command(t, "", "issue", "-key", signing, "-server", "127.0.0.1:7777", "-server", "LocalHost:7777",
		"-client", "42", "-protocol", "7", "-ttl", "1m", "-spectator", "-user", "name=Ada")
	if code != 0 {
		t.Fatalf("issue: exit %d: %s", code, stderr)
	}
	text := strings.TrimSpace(out)
	b, err := token.ParseString(text)
	if err != nil {
		t.Fatalf("issue printed %q: %v", out, err)
	}
	tok, err := token.ParseUnverified(b)
	if err != nil || tok.ClientID != 42 || tok.ProtocolID != 7 || tok.KeyID != 1 || !tok.Spectator ||
		string(tok.UserData) != "name=Ada" || tok.Expires.Sub(tok.IssuedAt).Seconds() != 60 ||
		strings.Join(tok.Servers, " ") != "127.0.0.1:7777 localhost:7777" {
		t.Fatalf("issued %v, %v", tok.String(), err)
	}
	if !strings.Contains(stderr, "client 42 spectator for 127.0.0.1:7777,localhost:7777") {
		t.Fatalf("issue's description: %q", stderr)
	}

	out, stderr, code = command(t, "", "verify", "-pub", verifying, "-server", "localhost:7777", "-protocol", "7", text)
	if code != 0 {
		t.Fatalf("verify: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"valid token\n", "  client     42\n", "  protocol   7\n", "  key        1\n",
		"  servers    127.0.0.1:7777 localhost:7777\n", "  spectator  true\n", "  user data  \"name=Ada\"\n", "  expires    "} {
		if !strings.Contains(out, want) {
			t.Errorf("verify output lacks %q:\n%s", want, out)
		}
	}
	// From stdin.
	if out, _ := runOKStdin(t, text+"\n", "verify", "-pub", verifying, "-server", "127.0.0.1:7777", "-protocol", "7", "-"); !strings.HasPrefix(out, "valid token") {
		t.Fatalf("verify from stdin: %q", out)
	}

	// Refusals: the reason, exit status 1.
	other := t.TempDir()
	runOK(t, "keygen", "-dir", other)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-pub", verifying, "-server", "127.0.0.1:7778", "-protocol", "7", text},
			"tokens: token: valid for 127.0.0.1:7777, localhost:7777, not for 127.0.0.1:7778\n"},
		{[]string{"-pub", verifying, "-server", "127.0.0.1:7777", text},
			"tokens: token: for protocol 0x7, not for this server's 0x0\n"},
		{[]string{"-pub", filepath.Join(other, "verify.pem"), "-server", "127.0.0.1:7777", "-protocol", "7", text},
			"tokens: token: bad signature (key 1): altered, forged, or signed with another key\n"},
		{[]string{"-pub", verifying, "-server", "127.0.0.1:7777", "-protocol", "7", "-key-id", "2", text},
			"tokens: token: signed with key 1, unknown to this server (it knows 2)\n"},
		{[]string{"-pub", verifying, "-server", "127.0.0.1:7777", "-protocol", "7", text[:40]},
			"tokens: token: malformed: 30 bytes, shorter than the smallest token (125)\n"},
	} {
		out, stderr, code := command(t, "", append([]string{"verify"}, c.args...)...)
		if code != 1 || out != "" || stderr != c.want {
			t.Errorf("verify %v: exit %d, stdout %q, stderr %q; want %q", c.args, code, out, stderr, c.want)
		}
	}
}

func runOKStdin(t *testing.T, stdin string, args ...string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(args, strings.NewReader(stdin), &out, &errOut); err != nil {
		t.Fatalf("tokens %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errOut.String()
}

// Bad command lines are refused with a message, never a panic or a token.
func TestBadCommandLines(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "keygen", "-dir", dir)
	signing, verifying := filepath.Join(dir, "signing.pem"), filepath.Join(dir, "verify.pem")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"keygen"}, "keygen: want -dir DIR"},
		{[]string{"issue", "-server", "a:1", "-client", "1"}, "issue: want -key FILE"},
		{[]string{"issue", "-key", signing, "-client", "1"}, "token: invalid: 0 servers, not 1 to 8"},
		{[]string{"issue", "-key", signing, "-server", "a:1"}, "token: invalid: ClientID is 0"},
		{[]string{"issue", "-key", signing, "-server", "a", "-client", "1"}, `token: invalid: server "a": not host:port`},
		{[]string{"issue", "-key", verifying, "-server", "a:1", "-client", "1"}, `token: invalid: private key: PEM block "PUBLIC KEY"`},
		{[]string{"issue", "-key", filepath.Join(dir, "missing"), "-server", "a:1", "-client", "1"}, "no such file"},
		{[]string{"issue", "-key", signing, "-server", "a:1", "-client", "1", "-key-id", "4294967296"}, "-key-id 4294967296 is more than 32 bits"},
		{[]string{"issue", "-key", signing, "-server", "a:1", "-client", "1", "-ttl", "-1s"}, "Lifetime -1s is negative"},
		{[]string{"verify", "-pub", verifying, "-server", "a:1"}, "verify: want -pub FILE and one TOKEN"},
		{[]string{"verify", "-pub", verifying, "x"}, "token: invalid: no Addrs"},
		{[]string{"verify", "-pub", verifying, "-server", "a:1", "not base64!"}, "token: malformed: not base64url"},
	} {
		var out, errOut bytes.Buffer
		err := run(c.args, strings.NewReader(""), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
			t.Errorf("%v: %v, stdout %q; want an error containing %q", c.args, err, out.String(), c.want)
		}
	}
	if _, stderr, code := command(t, "", "mint"); code != 2 || !strings.Contains(stderr, `unknown command "mint"`) {
		t.Errorf("unknown command: exit %d, %q", code, stderr)
	}
	if _, _, code := command(t, ""); code != 2 {
		t.Errorf("no command: exit %d", code)
	}
	if out, _, code := command(t, "", "help"); code != 0 || !strings.Contains(out, "tokens keygen -dir DIR") {
		t.Errorf("help: exit %d, %q", code, out)
	}
	if _, _, code := command(t, "", "issue", "-h"); code != 0 {
		t.Errorf("issue -h: exit %d", code)
	}
}
