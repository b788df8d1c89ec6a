// Package settings is pi's one model of settings.json: every key pi knows
// (the established harness's documented keys and pi's own), their types,
// defaults and scope, how the global and the trusted project file merge, and
// the diagnostics for keys that are unknown, invalid or without effect.
//
// The files are read by core/resources (with its size and regular-file
// checks) and handed to [Parse] once per load; every package then reads its
// values from the resulting [Settings] instead of opening the files again.
//
// # Adding a key
//
// A key is one line in a table: the established harness's keys are in
// peerkeys.go, pi's own in pikeys.go. Give it a Name (dotted for nested keys,
// e.g. "compaction.reserveTokens"), a Kind, its Default as JSON text and a
// Status. A key whose Status is [Applied] is one pi acts on; [Unsupported]
// keys are accepted and reported as having no effect, [NotApplicable] and
// [Internal] keys are accepted silently. When you implement a key, set its
// Status to Applied and read it with [Settings.Bool], [Settings.Int],
// [Settings.String], [Settings.Strings] or [Settings.Decode]; these return
// the default when no file sets the key. An object whose inside another
// package validates (permissions, sandbox) is Kind [Object]: read each
// file's value with [Settings.Layers].
package settings
