// Package safefile owns the two file operations every process sharing a
// hangdog home relies on: an exclusive flock, taken EINTR-safe (Lock,
// TryLock, LockContext, WithLock), and the atomic replacement of a file by
// a private temporary one renamed over it (Write, WriteDurable, NewTemp
// and Commit), so a reader sees the old content or the new, never a mix;
// a private random key made once however many processes race to make it
// (Key); and a small record's read (ReadFile). Its files are opened without
// Go's network poller (openPlain), which refuses regular files anyway.
//
// It imports only the standard library and x/sys: every layer may use it.
package safefile
