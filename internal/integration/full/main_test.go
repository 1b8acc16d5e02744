package full_test

import (
	"os"
	"testing"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var env = testcluster.Env{Options: testcluster.Options{Mode: testcluster.Full}}

func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }
