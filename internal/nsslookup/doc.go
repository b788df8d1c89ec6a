// Package nsslookup resolves and dials host names the way the system does,
// with a Go resolver in front.
//
// pi is built without cgo (a static binary starts faster and maps less; see
// RATIONALE.md), so the net package resolves names itself, from /etc/hosts
// and DNS only. A system can resolve more through its name service switch
// (glibc's NSS): mDNS names such as box.local (nss-mdns), the machine's own
// names (myhostname), systemd-resolved's resolve module, LDAP and others.
// A model server or an MCP server a user configured by such a name must
// keep working, so when Go's resolver cannot answer a name that NSS might,
// the Resolver asks NSS through `getent ahosts NAME`, bounded in time, and
// parses its output strictly.
//
// Which names go to NSS:
//
//   - a name ending in .local goes to getent first: RFC 6762 reserves it
//     for multicast DNS, which unicast DNS does not answer;
//   - any other name goes to Go's resolver first, and to getent only when
//     that fails and the hosts line of /etc/nsswitch.conf lists a source
//     other than files and dns (what else could answer it?).
//
// A name Go's resolver answers never runs getent.
package nsslookup
