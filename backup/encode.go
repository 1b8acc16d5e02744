package backup

import (
	"bytes"
	"encoding/json"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// encodeObject encodes obj, an object as the dynamic client decodes it, into buf, which it
// resets first, with the bytes encoding/json's Marshal gives (object keys sorted, <, > and
// & escaped, ...). It uses go-json-experiment's encoder with encoding/json's options, which
// allocates less; on a string that is not valid UTF-8 (which that encoder would write
// otherwise than encoding/json does), it uses encoding/json. buf is used again for the next
// object: archive.Writer.Add keeps none of the bytes it is given.
func encodeObject(buf *bytes.Buffer, obj map[string]any) error {
	buf.Reset()
	err := jsonv2.MarshalWrite(buf, obj, jsonv1.DefaultOptionsV1(), jsontext.AllowInvalidUTF8(false))
	if err == nil {
		return nil
	}
	data, err := json.Marshal(obj)
	buf.Reset()
	buf.Write(data)
	return err
}
