package prompt

import "encoding/json"

// testCatalog describes the default tools for this package's tests: the
// real declarations live with the tools (core/tool/builtin) and reach the
// builder through Options.Catalog.
func testCatalog() []Tool {
	return []Tool{
		{
			Name:        "read",
			Snippet:     "show the contents of a file (text or image), optionally a range of lines",
			Description: "Read a file from disk. Use offset and limit to page through large files.",
			Guidelines:  []string{"Read a file before you change it, so your edit starts from what is really there."},
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"file to read, relative to the working directory or absolute"},"offset":{"type":"integer","description":"first line to show, counting from 1"},"limit":{"type":"integer","description":"most lines to show"}},"required":["path"]}`),
		},
		{
			Name:        "bash",
			Snippet:     "run a shell command in the working directory and return its output",
			Description: "Run a bash command. Output is truncated when long; a timeout may be given in seconds.",
			Guidelines:  []string{"Prefer short, non-interactive commands; anything that waits for input will hang."},
			Parameters:  json.RawMessage(`{"type":"object","properties":{"command":{"type":"string","description":"the command line to run"},"timeout":{"type":"number","description":"seconds before the command is stopped"}},"required":["command"]}`),
		},
		{
			Name:        "edit",
			Snippet:     "replace an exact piece of text in a file with new text",
			Description: "Edit a file by replacing one exact, unique occurrence of oldText with newText.",
			Guidelines:  []string{"Use edit for targeted changes; the old text must match the file exactly, whitespace included."},
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"oldText":{"type":"string","description":"text to find; must occur exactly once"},"newText":{"type":"string","description":"replacement text"}},"required":["path","oldText","newText"]}`),
		},
		{
			Name:        "write",
			Snippet:     "create a file or overwrite one with the given contents",
			Description: "Write a whole file, creating parent directories as needed.",
			Guidelines:  []string{"Use write only for new files or complete rewrites; prefer edit for changes to existing files."},
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
		},
		{
			Name:        "grep",
			Snippet:     "search file contents for a pattern, honouring .gitignore",
			Description: "Search files for a regular expression and list matching lines with their paths.",
			Guidelines:  []string{"Use grep to locate code before reading whole files."},
			Parameters:  json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string"}},"required":["pattern"]}`),
		},
		{
			Name:        "find",
			Snippet:     "list files whose paths match a glob pattern",
			Description: "Find files by glob pattern, honouring .gitignore.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"path":{"type":"string"}},"required":["pattern"]}`),
		},
		{
			Name:        "ls",
			Snippet:     "list the entries of a directory",
			Description: "List a directory's entries, directories marked with a trailing slash.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`),
		},
	}
}
