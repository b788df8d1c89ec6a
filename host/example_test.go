package host_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/piwasm/pi/abi"
	"github.com/piwasm/pi/host"
)

// Loading an extension package and calling its before_agent_start hook.
// (The package directory holds extension.yaml and team-section.wasm, built
// with GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared.)
func ExampleRuntime_Load() {
	ctx := context.Background()
	agentDir, _ := os.MkdirTemp("", "pi-agent-")
	defer os.RemoveAll(agentDir)

	rt, err := host.NewRuntime(ctx, host.Config{AgentDir: agentDir, ProjectRoot: "."})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rt.Close(ctx)

	exts, diags := rt.Load(ctx, []string{examplePackage("team-section")}, nil)
	for _, d := range diags {
		fmt.Println(d)
	}
	for _, e := range exts {
		res, err := e.BeforeAgentStart(ctx, abi.BeforeAgentStartEvent{Input: "hello"}, nil)
		if err != nil {
			fmt.Println(err)
			continue
		}
		for _, op := range res.Ops {
			fmt.Printf("%s: %s %s at %v\n", e.Name(), op.Op, op.Name, *op.Order)
		}
	}
	// Output:
	// team-section: set_section team at 250
}

// examplePackage returns the package directory of an example plugin, with
// the module the test binary built.
func examplePackage(name string) string {
	return filepath.Join(host.BuiltPackagesDir(), name)
}
