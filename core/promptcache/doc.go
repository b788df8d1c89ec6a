// Package promptcache holds what pi knows about a provider's prompt cache:
// when a refresh of a cached prompt pays for itself and when it is due
// (policy.go), the scheduler that sends those refreshes while the cache
// entry is still alive (warmer.go), and how a reply's usage shows that the
// cache was missed (miss.go).
//
// The numbers are the established harness's (pi 1.6.0, settings
// cacheWarming and showCacheMissNotices), so both harnesses spend the same
// on the same session: a refresh is the last real request again with a
// one-token output cap, sent shortly before the entry's declared lifetime
// (models.json promptCache) ends, and only while the expected saving is at
// least $0.05 at the model's prices (models.json cost).
package promptcache
