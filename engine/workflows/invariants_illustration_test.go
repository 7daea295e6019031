package workflows_test

import (
	"testing"

	"github.com/creativeops/creativeops/engine/enginetest"
)

func TestInvariantsIllustrationCommissionQuote(t *testing.T) {
	enginetest.CheckWorkflow(t, "illustration-commission-quote")
}

func TestInputsMatterIllustrationCommissionQuote(t *testing.T) {
	enginetest.CheckInputsMatter(t, "illustration-commission-quote")
}

func TestInvariantsIllustrationPictureBook(t *testing.T) {
	enginetest.CheckWorkflow(t, "illustration-picture-book")
}

func TestInputsMatterIllustrationPictureBook(t *testing.T) {
	enginetest.CheckInputsMatter(t, "illustration-picture-book")
}
