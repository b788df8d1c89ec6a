// Package fspath resolves paths the way the file tools and the permission
// gate must judge them, and opens them without following symbolic links,
// so what was judged is what is touched.
//
// [Resolve] follows every symbolic link in a path, dangling ones included:
// a link named notes.md pointing at ~/.bashrc resolves to ~/.bashrc even
// while ~/.bashrc does not exist, so a write through it is judged (and
// refused) as a write to ~/.bashrc. [Open], [ReadDir] and [MkdirAll] then
// take that resolved path and refuse it when any component has become a
// symbolic link since (ELOOP, wrapped in [ErrChanged]): a directory swapped
// for a link to the home directory between the check and the write cannot
// redirect the write. On Unix they walk the path one component at a time
// with O_NOFOLLOW from a descriptor of the root directory; see
// RATIONALE.md for why not openat2.
package fspath
