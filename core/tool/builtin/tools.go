package builtin

import (
	"encoding/json"
	"math"

	"github.com/piwasm/pi/core/tool"
)

// ReadOnlyNames is the set that changes nothing on disk.
var ReadOnlyNames = []string{"read", "grep", "find", "ls"}

// The schemas keep the established harness's names, types, required lists and
// key order (type, required, properties) byte for byte in structure, so a
// model's calls mean the same to both; the descriptions are pi's own.
const (
	readSchema = `{"type":"object","required":["path"],"properties":{` +
		`"path":{"type":"string","description":"File to read, absolute or relative to the working directory"},` +
		`"offset":{"type":"number","description":"First line to show, counting from 1"},` +
		`"limit":{"type":"number","description":"Most lines to show"}}}`
	bashSchema = `{"type":"object","required":["command"],"properties":{` +
		`"command":{"type":"string","description":"The bash command line to run"},` +
		`"timeout":{"type":"number","description":"Seconds after which the command is killed (none unless given)"}}}`
	editSchema = `{"type":"object","required":["path","edits"],"properties":{` +
		`"path":{"type":"string","description":"File to edit, absolute or relative to the working directory"},` +
		`"edits":{"type":"array","items":{"type":"object","required":["oldText","newText"],"properties":{` +
		`"oldText":{"type":"string","description":"Text to replace, copied exactly from the file; it must occur once and not overlap another edit's oldText"},` +
		`"newText":{"type":"string","description":"Text to put in its place"}}},` +
		`"description":"The replacements, each matched against the file as it was before this call; merge changes that touch the same or neighbouring lines into one"}}}`
	writeSchema = `{"type":"object","required":["path","content"],"properties":{` +
		`"path":{"type":"string","description":"File to write, absolute or relative to the working directory"},` +
		`"content":{"type":"string","description":"The whole new content of the file"}}}`
	grepSchema = `{"type":"object","required":["pattern"],"properties":{` +
		`"pattern":{"type":"string","description":"Regular expression (or plain text with literal) to look for"},` +
		`"path":{"type":"string","description":"Directory or file to search (default: the working directory)"},` +
		`"glob":{"type":"string","description":"Only files matching this glob, relative to path: 'src/**/*.go' is anchored, '*.go' matches names at any depth"},` +
		`"ignoreCase":{"type":"boolean","description":"Match regardless of case (default: false)"},` +
		`"literal":{"type":"boolean","description":"Take the pattern as plain text, not a regular expression (default: false)"},` +
		`"context":{"type":"number","description":"Lines of context to show before and after each match (default: 0)"},` +
		`"limit":{"type":"number","description":"Most matches to show (default: 100)"}}}`
	findSchema = `{"type":"object","required":["pattern"],"properties":{` +
		`"pattern":{"type":"string","description":"Glob relative to the search directory: 'src/**/*.go' is anchored, '*.go' matches names at any depth"},` +
		`"path":{"type":"string","description":"Directory to search (default: the working directory)"},` +
		`"limit":{"type":"number","description":"Most results to show (default: 1000)"}}}`
	lsSchema = `{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Directory to list (default: the working directory)"},` +
		`"limit":{"type":"number","description":"Most entries to show (default: 500)"}}}`
)

// Tools returns the built-in tools bound to env, in the order read, bash,
// edit, write, grep, find, ls.
func Tools(env Env) []tool.Tool {
	e := env.withDefaults()
	return []tool.Tool{
		{
			Name: "read",
			Description: "Show a file's contents. Text is cut at 2000 lines or 50KB, whichever comes first; " +
				"the cut says which offset to continue from. Images (png, jpeg, gif, webp) are attached as images. " +
				"Use offset and limit to page through long files.",
			Parameters: json.RawMessage(readSchema),
			Snippet:    "show the contents of a file (text or image), optionally a range of lines",
			Guidelines: []string{"Read a file before you change it, so your edit starts from what is really there."},
			Hints:      tool.Hints{ReadOnly: true},
			Source:     tool.SourceBuiltin,
			Run:        e.runRead,
		},
		{
			Name: "bash",
			Description: "Run a bash command in the working directory; stdout and stderr come back merged. " +
				"Only the last 2000 lines or 50KB are shown, and the whole output is then saved to a file whose path is given. " +
				"A timeout in seconds may be set.",
			Parameters: json.RawMessage(bashSchema),
			Snippet:    "run a shell command in the working directory and return its output",
			Guidelines: []string{"Prefer short, non-interactive commands; anything that waits for input will hang."},
			Hints:      tool.Hints{Destructive: true, OpenWorld: true},
			Source:     tool.SourceBuiltin,
			Run:        e.runBash,
		},
		{
			Name: "edit",
			Description: "Change a file by exact text replacement. Every edits[].oldText must occur exactly once in the file as it is now, " +
				"and no two may overlap; all are matched against the original, not one after another. " +
				"Merge changes to the same or nearby lines into one edit, and keep each oldText short.",
			Parameters: json.RawMessage(editSchema),
			Snippet:    "replace exact pieces of text in a file, several disjoint ones in one call",
			Guidelines: []string{"Use edit for targeted changes; the old text must match the file exactly, whitespace included."},
			Hints:      tool.Hints{Destructive: true},
			Source:     tool.SourceBuiltin,
			Fold:       foldEditArgs,
			Run:        e.runEdit,
		},
		{
			Name:        "write",
			Description: "Write a whole file: creates it (and its parent directories) or replaces what is there.",
			Parameters:  json.RawMessage(writeSchema),
			Snippet:     "create a file or overwrite one with the given contents",
			Guidelines:  []string{"Use write only for new files or complete rewrites; prefer edit for changes to existing files."},
			Hints:       tool.Hints{Destructive: true},
			Source:      tool.SourceBuiltin,
			Run:         e.runWrite,
		},
		{
			Name: "grep",
			Description: "Search file contents for a regular expression and list matching lines with their paths and line numbers. " +
				"Honours .gitignore and includes hidden files. At most 100 matches (or the given limit) and 50KB are shown; " +
				"lines longer than 500 characters are cut.",
			Parameters: json.RawMessage(grepSchema),
			Snippet:    "search file contents for a pattern, honouring .gitignore",
			Guidelines: []string{"Use grep to locate code before reading whole files."},
			Hints:      tool.Hints{ReadOnly: true},
			Source:     tool.SourceBuiltin,
			Run:        e.runGrep,
		},
		{
			Name: "find",
			Description: "List files and directories whose paths match a glob, relative to the search directory. " +
				"Honours .gitignore. At most 1000 results (or the given limit) and 50KB are shown.",
			Parameters: json.RawMessage(findSchema),
			Snippet:    "list files whose paths match a glob pattern",
			Hints:      tool.Hints{ReadOnly: true},
			Source:     tool.SourceBuiltin,
			Run:        e.runFind,
		},
		{
			Name: "ls",
			Description: "List a directory: entries sorted regardless of case, directories marked with a trailing '/', dotfiles included. " +
				"At most 500 entries (or the given limit) and 50KB are shown.",
			Parameters: json.RawMessage(lsSchema),
			Snippet:    "list the entries of a directory",
			Hints:      tool.Hints{ReadOnly: true},
			Source:     tool.SourceBuiltin,
			Run:        e.runLs,
		},
	}
}

// Argument helpers: Prepare has already checked types, so these only pick
// values out, with a default when a property is absent.

func strArg(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}

func boolArg(args map[string]any, key string) bool {
	b, _ := args[key].(bool)
	return b
}

// numArg returns the number under key and whether it was given.
func numArg(args map[string]any, key string) (float64, bool) {
	f, ok := args[key].(float64)
	if !ok || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// limitArg is a count parameter: absent means def, anything below 1 means 1.
func limitArg(args map[string]any, key string, def int) int {
	f, ok := numArg(args, key)
	if !ok {
		return def
	}
	f = math.Floor(f)
	if f < 1 {
		return 1
	}
	if f > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(f)
}

// formatSize prints a byte count the short way people read it.
func formatSize(n int) string { return tool.FormatSize(n) }

func details(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
