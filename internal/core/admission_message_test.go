package core

import (
	"strings"
	"testing"
	"time"

	"github.com/memberplatform/memberplatform-go/observe"
)

// A refusal says what was judged: the operation failing on its own, or
// the whole area down (a rarely called operation shed with its area said
// that it had failed itself).
func TestLoadShedErrorNamesWhatWasJudged(t *testing.T) {
	op := (&loadShedError{Area: "payments", Reason: observe.ErrorServiceUnavailable, Wait: 80 * time.Millisecond}).Error()
	area := (&loadShedError{Area: "payments", Reason: observe.ErrorServiceUnavailable, Wait: 80 * time.Millisecond, WholeArea: true}).Error()
	if !strings.Contains(op, "attempts of the operation in area payments") || !strings.Contains(area, "attempts of every operation in area payments") {
		t.Errorf("messages %q and %q, want the operation's and the area's", op, area)
	}
}
