// Package resources discovers and loads everything pi reads from disk before a run: settings, project trust, context files, SYSTEM.md and APPEND_SYSTEM.md, skills, prompt templates (with argument parsing and substitution) and extension package directories, reporting problems as [diag.Diagnostic] values.
package resources
