package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsGamesSteamBreakEven(t *testing.T) {
	enginetest.CheckWorkflow(t, "games-steam-break-even")
}

func TestInputsMatterGamesSteamBreakEven(t *testing.T) {
	enginetest.CheckInputsMatter(t, "games-steam-break-even")
}

func TestInvariantsGamesSteamDiscountCalendar(t *testing.T) {
	enginetest.CheckWorkflow(t, "games-steam-discount-calendar")
}

func TestInputsMatterGamesSteamDiscountCalendar(t *testing.T) {
	enginetest.CheckInputsMatter(t, "games-steam-discount-calendar")
}

func TestInvariantsGamesSteamLaunch(t *testing.T) { enginetest.CheckWorkflow(t, "games-steam-launch") }

func TestInputsMatterGamesSteamLaunch(t *testing.T) {
	enginetest.CheckInputsMatter(t, "games-steam-launch")
}
