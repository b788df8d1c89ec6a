//go:build wasip1

package sdk

// The exports of the loop hooks and of extension tools.

//go:wasmexport pi_tool_call
func exportToolCall() int32 { return run(handleToolCall) }

//go:wasmexport pi_tool_result
func exportToolResult() int32 { return run(handleToolResult) }

//go:wasmexport pi_turn_end
func exportTurnEnd() int32 { return run(handleTurnEnd) }

//go:wasmexport pi_agent_end
func exportAgentEnd() int32 { return run(handleAgentEnd) }

//go:wasmexport pi_tool
func exportTool() int32 { return run(handleTool) }

//go:wasmimport extism:host/user pi_tool_update
func piToolUpdate(ptr, length uint32)

// Update streams partial output of the tool call in progress: text is
// shown as the call's output so far (each update replaces the previous
// one). It does nothing outside a tool call.
func Update(text string) {
	p, n := strPtr(text)
	piToolUpdate(p, n)
}

//go:wasmexport pi_session_before_compact
func exportSessionBeforeCompact() int32 { return run(handleSessionBeforeCompact) }

//go:wasmexport pi_context
func exportContext() int32 { return run(handleContext) }

//go:wasmexport pi_before_provider_request
func exportBeforeProviderRequest() int32 { return run(handleBeforeProviderRequest) }

//go:wasmexport pi_session_start
func exportSessionStart() int32 { return run(handleSessionStart) }

//go:wasmexport pi_session_shutdown
func exportSessionShutdown() int32 { return run(handleSessionShutdown) }

//go:wasmexport pi_session_before_switch
func exportSessionBeforeSwitch() int32 { return run(handleSessionBeforeSwitch) }

//go:wasmexport pi_session_before_fork
func exportSessionBeforeFork() int32 { return run(handleSessionBeforeFork) }
