package server_test

import (
	"os/exec"
	"strings"
	"testing"
)

// A dedicated server does not link the client pipeline: package server
// depends on the codec, the connect tokens, the transport and the
// standard library (with quic-go and webtransport-go), never on arche or
// the packages that plug into it.
func TestServerDoesNotImportThePipeline(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/netsmooth/netsmooth/server").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages: %s", len(deps), out)
	}
	for _, d := range deps {
		for _, banned := range []string{"github.com/mlange-42/arche", "netsmooth/systems", "netsmooth/components",
			"netsmooth/timeline", "netsmooth/ecs", "netsmooth/client", "netsmooth/blend"} {
			if strings.Contains(d, banned) {
				t.Errorf("package server depends on %s", d)
			}
		}
	}
}
