package recall

import (
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"syscall"
	"unsafe"

	"github.com/zylos/zylos-memory/internal/regfile"
	"github.com/zylos/zylos-memory/tiers/records"
)

// mappedRecordHits is recordHits over a read-only mapping of the index:
// in a fresh hook process, copying a megabyte index into new pages cost
// more than a tenth of the prompt's budget, and most of its lines are
// only glanced at. The hits are copied out before the mapping goes. ok is
// false when the index cannot be mapped (missing: the caller rebuilds it)
// or shrank under the mapping, which an edit in place can do; the caller
// then reads it the ordinary way.
func mappedRecordHits(root string, q query, best int) (hits []Hit, ok bool) {
	data, unmap, ok := mapIndex(root)
	if !ok {
		return nil, false
	}
	defer unmap()
	ok = scanMapped(data, func(text string) {
		hits = indexHits(root, text, q, best)
		for i := range hits {
			cloneHit(&hits[i])
		}
	})
	if !ok {
		return nil, false
	}
	return hits, true
}

// mapIndex maps root's index read-only. ok is false when there is no
// index, it is empty or too large to index with int32 offsets, or the
// mapping fails. The mapping outlives the file's descriptor; unmap ends it.
func mapIndex(root string) (data []byte, unmap func(), ok bool) {
	f, err := regfile.Open(filepath.Join(root, records.IndexFile))
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 || st.Size() > math.MaxInt32 {
		return nil, nil, false
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, false
	}
	return data, func() { syscall.Munmap(data) }, true
}

// scanMapped calls scan with the mapped bytes as a string, which must not
// outlive the call. A file truncated in place under the mapping makes a
// read past its new end fault (SIGBUS) instead of returning: that fault is
// recovered and reported as ok false. Any other panic goes on.
func scanMapped(data []byte, scan func(text string)) (ok bool) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			ok = false
		}
	}()
	scan(unsafe.String(&data[0], len(data)))
	return true
}

// cloneHit gives h strings of its own, free of the mapped index.
func cloneHit(h *Hit) {
	h.Category = strings.Clone(h.Category)
	h.Title = strings.Clone(h.Title)
	h.Path = strings.Clone(h.Path)
	for i, t := range h.Tags {
		h.Tags[i] = strings.Clone(t)
	}
}
