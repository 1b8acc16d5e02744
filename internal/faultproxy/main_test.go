package faultproxy_test

import (
	"os"
	"testing"

	"github.com/backupkit/backupkit/internal/testcluster"
)

var env testcluster.Env

func TestMain(m *testing.M) { os.Exit(env.Main(m, nil)) }
