// Package rpc is pi's RPC front end: the established harness's
// line-delimited JSON protocol over stdin and stdout, driving one
// core/runtime session. Commands arrive one per line; each gets exactly
// one response record, and the runtime's events are written as they
// happen. Permission questions go to the client as extension_ui_request
// select dialogs. It sits beside package ui (the terminal front end);
// cmd/pi builds the session and hands it to one of them.
package rpc
