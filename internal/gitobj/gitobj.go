// Package gitobj writes git objects (blobs, trees, commits) in this
// process through go-git, as git itself writes them: the memory journal
// commits without a git process on a hook's path, and the team exchange
// builds the commits it publishes, both with these.
package gitobj

import (
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Blob writes data as a loose blob. It does not look first whether the
// blob is kept already: that would read the index of every pack (tens of
// milliseconds in a long history), and a loose copy of a packed object is
// only pruned by the next gc.
func Blob(st storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := st.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// Tree writes a tree of entries, in git's order (a directory sorts as its
// name followed by "/"; go-git encodes entries as given).
func Tree(st storer.EncodedObjectStorer, entries []object.TreeEntry) (plumbing.Hash, error) {
	key := func(en object.TreeEntry) string {
		if en.Mode == filemode.Dir {
			return en.Name + "/"
		}
		return en.Name
	}
	sort.Slice(entries, func(a, b int) bool { return key(entries[a]) < key(entries[b]) })
	obj := st.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}

// Commit writes the commit of tree on parent (zero for none), by sig as
// author and committer.
func Commit(st storer.EncodedObjectStorer, tree, parent plumbing.Hash, sig object.Signature, msg string) (plumbing.Hash, error) {
	c := &object.Commit{Author: sig, Committer: sig, Message: msg, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	obj := st.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return st.SetEncodedObject(obj)
}
