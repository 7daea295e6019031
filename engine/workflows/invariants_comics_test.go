package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsComicsKickstarter(t *testing.T) { enginetest.CheckWorkflow(t, "comics-kickstarter") }

func TestInputsMatterComicsKickstarter(t *testing.T) {
	enginetest.CheckInputsMatter(t, "comics-kickstarter")
}

func TestInvariantsComicsWebcomicLaunch(t *testing.T) {
	enginetest.CheckWorkflow(t, "comics-webcomic-launch")
}

func TestInputsMatterComicsWebcomicLaunch(t *testing.T) {
	enginetest.CheckInputsMatter(t, "comics-webcomic-launch")
}
