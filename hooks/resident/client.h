/* What the client in client.c and the server in server.go agree on. */
#ifndef ZYLOS_MEMORY_RESIDENT_H
#define ZYLOS_MEMORY_RESIDENT_H

/* The first field of every request; a server of another protocol declines. */
#define ZM_MAGIC "zylos-memory hook/2"

/* The socket's name in the home's memory/.state directory. */
#define ZM_SOCKET "hooks.sock"

/* The hook entry points the service answers, space separated. */
#define ZM_SERVED "session-start user-prompt-submit stop pre-tool-use post-tool-use post-tool-use-failure"

/* The commands of zylos's own session start that the service answers as
 * well: the words after the global flags, whole, '|' between two. They
 * read no stdin, so the client sends none; the service answers before it
 * accepts, and a client without a whole answer runs the command itself. */
#define ZM_COMMANDS "inject|session-start-inject|c4 session-init"

/* The server's first byte: it answers (a 4-byte deadline in ms follows) or
 * declines (the hook answers in its own process). Then its answer: 'R',
 * the exit status, and stdout and stderr, each as a 4-byte length and the
 * bytes. Numbers are big-endian. */
#define ZM_ACCEPT 'A'
#define ZM_DECLINE 'D'
#define ZM_ANSWER 'R'

/* How long the client waits for ZM_ACCEPT before answering in its own
 * process, and how long past the service's deadline it waits for the
 * answer before failing open. */
#define ZM_ACCEPT_WAIT_MS 1000
#define ZM_ANSWER_GRACE_MS 250

/* A hook's deadline when its command line gives no --timeout (Go's
 * hooks.DefaultDeadline), and the longest --timeout the service answers
 * under. The client waits for the answer no longer than the deadline its
 * own command line gives, whatever the service's ZM_ACCEPT says: a
 * listener that is not the service cannot hold a hook. */
#define ZM_DEFAULT_DEADLINE_MS 800
#define ZM_MAX_DEADLINE_MS 3600000

/* How long the client waits for a full stdout or stderr to drain. */
#define ZM_WRITE_WAIT_MS 5000

/* The bounds the server sets on a request and the client on an answer. */
#define ZM_MAX_REQUEST (1 << 20)
#define ZM_MAX_ANSWER (16 << 20)

#endif
