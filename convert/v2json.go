package convert

import (
	"errors"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// decodeOptions make github.com/go-json-experiment/json decode as utiljson does, the
// decoding the API server uses: encoding/json's rules (jsonv1.DefaultOptionsV1: duplicate
// keys, the last wins; invalid UTF-8 replaced; unknown keys ignored), keys matched
// case-sensitively, and a whole number decoded into an interface value as an int64 (a
// float64 otherwise).
var decodeOptions = jsonv2.JoinOptions(jsonv1.DefaultOptionsV1(), jsonv2.MatchCaseInsensitiveNames(false),
	jsonv2.WithUnmarshalers(jsonv2.UnmarshalFromFunc(numberAsInt64)))

// numberAsInt64 decodes a JSON number into an interface value as utiljson does: an int64
// when it is a whole number that fits, else a float64; anything else as by default.
func numberAsInt64(dec *jsontext.Decoder, v *any) error {
	if dec.PeekKind() != '0' {
		return errors.ErrUnsupported // the default decoding
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if s := tok.String(); !strings.ContainsAny(s, ".eE") {
		if i, err := tok.Int(); err == nil {
			*v = i
			return nil
		}
	}
	f, err := tok.Float()
	if err != nil {
		return err
	}
	*v = f
	return nil
}

// unmarshal decodes raw into v with decodeOptions.
func unmarshal(raw []byte, v any) error { return jsonv2.Unmarshal(raw, v, decodeOptions) }
