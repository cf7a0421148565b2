package records

import (
	"errors"
	"testing"
)

// FuzzRecordJSON feeds arbitrary bytes through everything a write does
// to input before touching disk: decoding, auto-fix, encoding, schema
// validation, and the reader's lenient parse. Nothing may panic, and a
// validation failure is always a VALIDATION_ERROR block.
func FuzzRecordJSON(f *testing.F) {
	f.Add([]byte(storedDecision))
	f.Add([]byte(`{"tags":"x","title":"a -> b #tags:c","confidence":9,"id":"Has Spaces"}`))
	f.Add([]byte(`[1,2]`))
	f.Add([]byte(`{"content":{"status":null},"changes":[{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ParseRecord(data)
		d, err := decodeDoc(data)
		if err != nil {
			return
		}
		autoFix(d, true, testNow, nil)
		out, err := d.bytes()
		if err != nil {
			t.Fatalf("encode after auto-fix: %v", err)
		}
		for _, c := range []string{"decision", "project"} {
			err := Validate(c, out)
			var e *Error
			if err != nil && (!errors.As(err, &e) || e.Kind != ErrValidation) {
				t.Fatalf("validate: %v", err)
			}
		}
	})
}
