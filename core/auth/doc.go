// Package auth reads and writes auth.json in the agent dir, the
// credentials file pi shares with the established TypeScript harness: per
// provider an API key ({"type":"api_key","key":...,"env":{...}}) or OAuth
// tokens ({"type":"oauth","access":...,"refresh":...,"expires":ms}). The
// file is written with mode 0600 and replaced atomically; entries and
// fields pi does not use are kept as they were. An OAuth access token is
// used while it is valid and refreshed through the provider's token
// endpoint when it has expired.
package auth
