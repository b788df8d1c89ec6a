// Package export writes a conversation out for people: Markdown, and a
// self-contained HTML page (styles inline, no scripts, nothing fetched).
// Every piece of session text is escaped: a session holds what tools and
// models produced, and an export must not become a page that runs it.
package export
