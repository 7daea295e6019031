package workflows

import (
	"fmt"
	"math"
	"time"

	"github.com/creativeops/creativeops/engine"
)

// Manufacturing and freight schedule for a board or card game made in
// China, planned backwards from the date stock must be in the destination
// warehouse (a convention, a retail street date, crowdfunding fulfilment).
// Rules used (lead times as quoted by the large game manufacturers, e.g.
// Panda Game Manufacturing and LongPack, conservative ends):
//   - Pre-press file check and digital proofs: 2 weeks. Pre-production
//     sample made, couriered and approved: 4 weeks. Mass production: 8–10
//     weeks, 10 planned.
//   - Factories stop for Chinese New Year: from a week before until two
//     weeks after (engine.FactoryClosed), while workers travel home and
//     back. Factory work is counted around that shutdown, and goods are
//     never picked up during it.
//   - Ocean freight, port to port plus customs clearance and trucking to the
//     warehouse: US/Canada 6 weeks, EU/UK 7 weeks, Australia 5 weeks. Air
//     freight door to door: 2 weeks. Freight is booked 3 weeks before the
//     cargo is ready.
//   - Usable container volume: 20ft 28 CBM, 40ft 58 CBM, 40ft high cube
//     68 CBM; under 15 CBM ships LCL (shared container). Master cartons and
//     pallets add about 15% to the game boxes' volume. Containers travel on
//     US roads with at most about 20,000 kg of cargo.
//   - Air freight bills the greater of actual weight and volumetric weight,
//     1 CBM = 167 kg (IATA divisor 6,000 cm³/kg).
func init() {
	engine.Register(&engine.Workflow{
		ID:          "tabletop-manufacturing-freight",
		Name:        "Manufacturing and freight schedule",
		Vertical:    "tabletop",
		PastDate:    engine.PastDate{Field: "in_warehouse_date", Policy: engine.PastReplan},
		Description: "Schedules files, proofs, pre-production sample, mass production and freight backwards from the in-warehouse date, counting the Chinese New Year shutdown, and sizes the shipment (CBM, containers or LCL, air chargeable weight), with the earliest feasible date when the files deadline has passed. A warehouse date whose files deadline has passed is re-planned to the earliest date stock can land with files sent now.",
		Fields: []engine.Field{
			{Name: "in_warehouse_date", Kind: engine.Date, Required: true, Description: "Date the stock must be in the destination warehouse."},
			{Name: "units", Kind: engine.Integer, Required: true, Min: engine.Bound(1), Max: engine.Bound(500000), Description: "Copies manufactured."},
			{Name: "box_length_cm", Kind: engine.Number, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Game box length in centimetres."},
			{Name: "box_width_cm", Kind: engine.Number, Required: true, Min: engine.Bound(1), Max: engine.Bound(100), Description: "Game box width in centimetres."},
			{Name: "box_depth_cm", Kind: engine.Number, Required: true, Min: engine.Bound(1), Max: engine.Bound(50), Description: "Game box depth in centimetres."},
			{Name: "unit_weight_kg", Kind: engine.Number, Default: 1.5, Min: engine.Bound(0.05), Max: engine.Bound(30), Description: "Weight of one boxed game in kilograms."},
			{Name: "destination", Kind: engine.String, Enum: []string{"us", "canada", "eu", "uk", "australia"}, Default: "us", Description: "Destination market of the shipment."},
			engine.RegionField(),
			{Name: "freight", Kind: engine.String, Enum: []string{"ocean", "air"}, Default: "ocean", Description: "Freight mode."},
		},
		ExampleContext: map[string]any{
			"in_warehouse_date": "2027-07-15",
			"units":             3000,
			"box_length_cm":     30,
			"box_width_cm":      30,
			"box_depth_cm":      7,
			"unit_weight_kg":    1.6,
			"destination":       "us",
			"freight":           "ocean",
			"as_of":             "2026-11-20",
		},
		Sources: []engine.Source{
			{Title: "Panda Game Manufacturing: production timeline and Chinese New Year", URL: "https://www.pandagm.com/", Checked: "2026-11"},
			{Title: "IATA: volumetric weight (6,000 cm³ per kg)", URL: "https://www.iata.org/", Checked: "2026-11"},
			{Title: "Hong Kong Observatory: Gregorian–lunar calendar conversion (new-year dates)", URL: "https://www.hko.gov.hk/en/gts/time/conversion.htm", Checked: "2026-11"},
		},
		Steps: []engine.Step{
			{Name: "schedule", Run: tabletopMfgSchedule},
			{Name: "size-shipment", Run: tabletopMfgShipment},
			{Name: "recommend", Run: tabletopMfgRecommend},
		},
	})
}

const (
	tabletopPrepressWeeks   = 2
	tabletopSampleWeeks     = 4
	tabletopProductionWeeks = 10
	tabletopAirWeeks        = 2
	tabletopBookFreightDays = 21
	tabletopCartonOverhead  = 1.15
	tabletopLCLMaxCBM       = 15.0
	tabletopVolumetricKg    = 167.0
	tabletopMaxCargoKg      = 20000.0
)

var tabletopOceanWeeks = map[string]int{"us": 6, "canada": 6, "eu": 7, "uk": 7, "australia": 5}

// tabletopFactoryClosed reports whether d falls in the Chinese New Year
// factory closure (engine.FactoryClosed: a week before to two weeks after).
func tabletopFactoryClosed(d time.Time) bool { return engine.FactoryClosed(d) }

// tabletopFactoryDays moves a date by n factory days (negative goes back),
// skipping the shutdown, and returns the date and the closed days skipped.
func tabletopFactoryDays(d time.Time, n int) (time.Time, int) {
	step, skipped := 1, 0
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d = engine.AddDays(d, step)
		if tabletopFactoryClosed(d) {
			skipped++
			continue
		}
		n--
	}
	return d, skipped
}

func tabletopFreightWeeks(in *engine.Input) int {
	if in.Str("freight") == "air" {
		return tabletopAirWeeks
	}
	return tabletopOceanWeeks[in.Str("destination")]
}

type tabletopMfgDates struct {
	files, proofs, sample, freightBooked, exFactory time.Time
	shutdown                                        int
	pickupMoved                                     time.Time // the pickup date that fell in the shutdown, if any
}

// tabletopMfgBack schedules the factory chain backwards from the date stock
// must be in the warehouse.
func tabletopMfgBack(in *engine.Input, p *engine.Plan, target time.Time) tabletopMfgDates {
	var d tabletopMfgDates
	// Goods leave on a working day the factory is open: a pickup that would
	// fall in the New Year shutdown happens on the last day before it.
	d.exFactory = engine.AddWeeks(target, -tabletopFreightWeeks(in))
	if tabletopFactoryClosed(d.exFactory) {
		d.pickupMoved = d.exFactory
		for tabletopFactoryClosed(d.exFactory) {
			d.exFactory = engine.AddDays(d.exFactory, -1)
		}
	}
	d.exFactory = p.Calendar().PrevWorkday(d.exFactory)
	for tabletopFactoryClosed(d.exFactory) {
		d.exFactory = p.Calendar().PrevWorkday(engine.AddDays(d.exFactory, -1))
	}
	var s1, s2, s3 int
	d.sample, s1 = tabletopFactoryDays(d.exFactory, -7*tabletopProductionWeeks)
	d.proofs, s2 = tabletopFactoryDays(d.sample, -7*tabletopSampleWeeks)
	d.files, s3 = tabletopFactoryDays(d.proofs, -7*tabletopPrepressWeeks)
	d.files = p.Calendar().PrevWorkday(d.files)
	d.shutdown = s1 + s2 + s3
	d.freightBooked = p.Calendar().PrevWorkday(engine.AddDays(d.exFactory, -tabletopBookFreightDays))
	return d
}

// tabletopMfgSchedule plans on the requested warehouse date when the files
// deadline is still ahead, and otherwise on the earliest date stock can land
// with files sent now: the chain is never dated in the past.
func tabletopMfgSchedule(in *engine.Input, p *engine.Plan) error {
	requested, asOf, r := in.Date("in_warehouse_date"), p.AsOf(), in.Region()
	target := requested
	d := tabletopMfgBack(in, p, target)
	if d.files.Before(asOf) {
		// Forward from today: what is the earliest the stock can land?
		ready, _ := tabletopFactoryDays(asOf, 7*(tabletopPrepressWeeks+tabletopSampleWeeks+tabletopProductionWeeks))
		// The warehouse receives on a working day.
		earliest := p.Calendar().NextWorkday(engine.AddWeeks(ready, tabletopFreightWeeks(in)))
		for tabletopMfgBack(in, p, earliest).files.Before(asOf) {
			earliest = p.Calendar().NextWorkday(engine.AddDays(earliest, 1))
		}
		why := fmt.Sprintf("Files were due at the factory by %s (%s before the plan date); with files sent now, stock lands %s at the earliest by %s freight, %s after %s.",
			engine.FormatDate(d.files), engine.Plural(engine.DaysBetween(d.files, asOf), "day", "days"), engine.FormatDate(earliest), in.Str("freight"),
			engine.Plural(engine.DaysBetween(requested, earliest), "day", "days"), engine.FormatDate(requested))
		p.Warn("FILES_DEADLINE_PASSED", "%s", why)
		p.Set("earliest_in_warehouse_date", engine.FormatDate(earliest))
		if in.Str("freight") == "ocean" {
			byAir := engine.AddWeeks(ready, tabletopAirWeeks)
			if !byAir.After(requested) {
				p.Warn("AIR_FREIGHT_OPTION", "Ocean freight cannot make %s, but air freight from %s lands %s.", engine.FormatDate(requested), engine.FormatDate(ready), engine.FormatDate(byAir))
				p.Set("air_in_warehouse_date", p.Label("in the warehouse by air freight", byAir))
			}
		}
		p.Replanned(requested, earliest, why)
		target = earliest
		d = tabletopMfgBack(in, p, target)
	}
	p.SetTarget(target)
	if !d.pickupMoved.IsZero() {
		p.Warn("EX_FACTORY_IN_SHUTDOWN", "Goods would leave the factory on %s, during the Chinese New Year shutdown; they must be picked up before it, by %s, %s earlier.",
			engine.FormatDate(d.pickupMoved), engine.FormatDate(d.exFactory), engine.Plural(engine.DaysBetween(d.exFactory, d.pickupMoved), "day", "days"))
	}
	p.Deliverable("files-to-factory", "Print-ready files to the factory", d.files, r)
	p.Handover(engine.KindAction, "proofs-approved", "Digital proofs approved", d.proofs)
	p.Handover(engine.KindAction, "sample-approved", "Pre-production sample approved; mass production starts", d.sample)
	p.Deliverable("freight-booked", "Freight booked with the forwarder", engine.Later(asOf, d.freightBooked), r)
	p.Handover(engine.KindDeliverable, "ex-factory", "Goods ready at the factory and picked up", d.exFactory)
	p.Handover(engine.KindDeliverable, "in-warehouse", "Stock in the destination warehouse", target)
	p.DependsOn("proofs-approved", "files-to-factory")
	p.DependsOn("sample-approved", "proofs-approved")
	p.DependsOn("ex-factory", "sample-approved", "freight-booked")
	p.DependsOn("in-warehouse", "ex-factory")
	for _, m := range p.Milestones() {
		if m.Key == "files-to-factory" {
			d.files = m.Date
		}
	}
	p.Set("files_deadline", p.Ref("files-to-factory"))
	p.Set("ex_factory_date", p.Ref("ex-factory"))
	p.Set("in_warehouse_date", p.Ref("in-warehouse"))
	if d.shutdown > 0 {
		p.Warn("CNY_SHUTDOWN", "The factory schedule crosses the Chinese New Year shutdown, which adds %s: files are due %s.",
			engine.Plural(d.shutdown, "closed day", "closed days"), engine.FormatDate(d.files))
	}
	p.Set("factory_shutdown_days", d.shutdown)
	p.Set("slack_days", engine.DaysBetween(asOf, d.files))
	return nil
}

func tabletopMfgShipment(in *engine.Input, p *engine.Plan) error {
	units := float64(in.Int("units"))
	boxCBM := in.Float("box_length_cm") * in.Float("box_width_cm") * in.Float("box_depth_cm") / 1e6
	cbm := engine.Round(units*boxCBM*tabletopCartonOverhead, 2)
	kg := engine.Round(units*in.Float("unit_weight_kg"), 1)
	shipment := map[string]any{"total_cbm": cbm, "total_weight_kg": kg}
	if in.Str("freight") == "air" {
		chargeable := math.Max(kg, cbm*tabletopVolumetricKg)
		shipment["air_chargeable_kg"] = engine.Round(chargeable, 1)
		shipment["load"] = "air"
		if chargeable > 1000 {
			p.Warn("AIR_FREIGHT_HEAVY", "%.0f kg chargeable by air costs roughly %s–%s at the $4–8/kg commonly quoted from China, many times an ocean booking.",
				chargeable, engine.USD(chargeable*4), engine.USD(chargeable*8))
		}
		p.Set("shipment", shipment)
		return nil
	}
	byWeight := int(math.Ceil(kg / tabletopMaxCargoKg))
	switch {
	case cbm < tabletopLCLMaxCBM && byWeight <= 1:
		shipment["load"] = "LCL (shared container)"
	case cbm <= 28 && byWeight <= 1:
		shipment["load"], shipment["containers"], shipment["fill_pct"] = "1 × 20ft", 1, engine.Round(cbm/28*100, 1)
	case cbm <= 58 && byWeight <= 1:
		shipment["load"], shipment["containers"], shipment["fill_pct"] = "1 × 40ft", 1, engine.Round(cbm/58*100, 1)
	default:
		n := max(int(math.Ceil(cbm/68)), byWeight)
		shipment["load"], shipment["containers"], shipment["fill_pct"] = fmt.Sprintf("%d × 40ft high cube", n), n, engine.Round(cbm/(68*float64(n))*100, 1)
		if byWeight > int(math.Ceil(cbm/68)) {
			p.Warn("WEIGHT_LIMITED", "%.0f kg of cargo exceeds the ~20,000 kg a container may carry on US roads, so %d containers are needed although the volume (%.1f CBM) fits fewer.", kg, n, cbm)
		}
	}
	p.Set("shipment", shipment)
	return nil
}

func tabletopMfgRecommend(in *engine.Input, p *engine.Plan) error {
	ship := p.Get("shipment").(map[string]any)
	p.RecommendOn(engine.High, "files-to-factory", "Lock print-ready files",
		fmt.Sprintf("Send final files with bleed, dielines and the component list by %s; every late day moves the whole chain.", p.Ref("files-to-factory")))
	p.RecommendOn(engine.High, "freight-booked", "Book freight early",
		fmt.Sprintf("Ask two forwarders to quote %s (%.1f CBM, %.0f kg) including customs clearance and delivery to the warehouse.", ship["load"], ship["total_cbm"], ship["total_weight_kg"]))
	p.Recommend(engine.Medium, "Approve a physical sample", "Check component counts, colour and box fit on the pre-production sample; fixes after mass production starts cost a reprint.")
	if p.Get("factory_shutdown_days").(int) > 0 {
		p.Recommend(engine.Medium, "Get ahead of Chinese New Year", "Factories fill their pre-holiday slots early; confirm your production slot in writing before the shutdown.")
	}
	p.Strategy("To have %s in the %s warehouse by %s: files to the factory by %s, ex-factory %s, shipping %s (%.1f CBM) by %s.",
		engine.Plural(in.Int("units"), "copy", "copies"), map[string]string{"us": "US", "canada": "Canadian", "eu": "EU", "uk": "UK", "australia": "Australian"}[in.Str("destination")], p.Get("in_warehouse_date"), p.Ref("files-to-factory"), p.Get("ex_factory_date"),
		ship["load"], ship["total_cbm"], in.Str("freight"))
	return nil
}
