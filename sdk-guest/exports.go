//go:build wasip1

package sdk

import "github.com/piwasm/pi/abi"

// The exports of ABI v1. Each hook runs its handler through run, which
// fetches the event, writes the envelope and yields.

//go:wasmexport pi_abi_version
func exportABIVersion() int32 { return abi.Version }

//go:wasmexport pi_before_agent_start
func exportBeforeAgentStart() int32 { return run(handleBeforeAgentStart) }

//go:wasmexport pi_assemble
func exportAssemble() int32 { return run(handleAssemble) }

//go:wasmexport pi_input
func exportInput() int32 { return run(handleInput) }

//go:wasmexport pi_command
func exportCommand() int32 { return run(handleCommand) }

//go:wasmexport pi_commands
func exportCommands() int32 { return run(handleCommands) }

//go:wasmexport pi_command_complete
func exportCommandComplete() int32 { return run(handleCommandComplete) }
