package server

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"

	"github.com/creativeops/creativeops/apierror"
	"github.com/creativeops/creativeops/auth"
	"github.com/creativeops/creativeops/engine"
	creativeopsv1 "github.com/creativeops/creativeops/gen/creativeops/v1"
	"github.com/creativeops/creativeops/jobs"
	"github.com/creativeops/creativeops/server/wire"
)

type engineService struct {
	creativeopsv1.UnimplementedEngineServiceServer
	runner *jobs.Runner
}

func (s *engineService) ListVerticals(ctx context.Context, _ *creativeopsv1.ListVerticalsRequest) (*creativeopsv1.ListVerticalsResponse, error) {
	vs := engine.Verticals()
	out := &creativeopsv1.ListVerticalsResponse{Verticals: make([]*creativeopsv1.Vertical, len(vs)), Total: int32(len(vs))}
	for i, v := range vs {
		out.Verticals[i] = &creativeopsv1.Vertical{Key: v.Key, Name: v.Name, Description: v.Description, WorkflowCount: int32(len(engine.Workflows(v.Key)))}
	}
	return out, nil
}

func (s *engineService) ListCalendars(ctx context.Context, _ *creativeopsv1.ListCalendarsRequest) (*creativeopsv1.ListCalendarsResponse, error) {
	out := &creativeopsv1.ListCalendarsResponse{Currencies: engine.Currencies()}
	aliases := engine.RegionField().Aliases
	for _, r := range engine.Regions() {
		c := &creativeopsv1.Country{Code: string(r), Name: r.Name()}
		for alias, code := range aliases {
			if code == string(r) {
				c.Aliases = append(c.Aliases, alias)
			}
		}
		out.Countries = append(out.Countries, c)
	}
	for _, c := range engine.Closures() {
		pc := &creativeopsv1.Closure{
			Key: c.Key, Name: c.Name, Kind: string(c.Kind), Affects: c.Affects, Estimate: c.Estimate,
			Source: &creativeopsv1.ClosureSource{Title: c.Source.Title, Url: c.Source.URL, Checked: c.Source.Checked},
		}
		if c.Estimate != "" {
			pc.KnownFrom, pc.KnownTo = int32(c.KnownFrom), int32(c.KnownTo)
		}
		out.Closures = append(out.Closures, pc)
	}
	return out, nil
}

func (s *engineService) ListWorkflows(ctx context.Context, req *creativeopsv1.ListWorkflowsRequest) (*creativeopsv1.ListWorkflowsResponse, error) {
	if v := req.GetVertical(); v != "" {
		if err := engine.CheckVertical("vertical", v); err != nil {
			return nil, err
		}
	}
	ws := engine.Workflows(req.GetVertical())
	out := &creativeopsv1.ListWorkflowsResponse{Workflows: make([]*creativeopsv1.Workflow, len(ws)), Total: int32(len(ws))}
	for i, w := range ws {
		out.Workflows[i] = workflowToProto(w)
	}
	return out, nil
}

func (s *engineService) GetWorkflow(ctx context.Context, req *creativeopsv1.GetWorkflowRequest) (*creativeopsv1.Workflow, error) {
	w, ok := engine.LookupWorkflow(req.GetId())
	if !ok {
		return nil, apierror.NotFound("workflow", req.GetId())
	}
	return workflowToProto(w), nil
}

func (s *engineService) RunWorkflow(ctx context.Context, req *creativeopsv1.RunWorkflowRequest) (*creativeopsv1.Job, error) {
	p := principal(ctx)
	// A tracked run creates a plan, which is plans:write's to create.
	if req.GetTrack() && !p.Allows(auth.ScopePlansWrite) {
		return nil, missingScope(auth.ScopePlansWrite)
	}
	j, err := s.runner.Submit(ctx, jobs.Request{
		OrganizationID: p.OrganizationID,
		KeyID:          p.KeyID,
		Vertical:       req.GetVertical(),
		Workflow:       req.GetWorkflow(),
		Context:        req.GetContext().AsMap(),
		Async:          req.GetAsync(),
		Track:          req.GetTrack(),
		CreatorID:      req.GetCreatorId(),
	})
	if err != nil {
		return nil, err
	}
	if req.GetAsync() {
		markAccepted(ctx, "/v1/engine/status/"+j.ID)
	}
	return wire.Job(j), nil
}

func (s *engineService) GetJob(ctx context.Context, req *creativeopsv1.GetJobRequest) (*creativeopsv1.Job, error) {
	j, err := s.runner.Get(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Job(j), nil
}

func (s *engineService) ListJobs(ctx context.Context, req *creativeopsv1.ListJobsRequest) (*creativeopsv1.ListJobsResponse, error) {
	page, err := readPage(req)
	if err != nil {
		return nil, err
	}
	rows, err := s.runner.List(ctx, principal(ctx).OrganizationID, jobs.ListQuery{
		Status: req.GetStatus(), Vertical: req.GetVertical(), Workflow: req.GetWorkflow(),
		After: page.after, Limit: page.fetch(), Basic: req.GetView() != viewFull,
	})
	if err != nil {
		return nil, err
	}
	items, next := renderPage(req, rows, page.size, func(j *jobs.Job) string { return j.ID }, func(j *jobs.Job) *creativeopsv1.Job {
		out := wire.Job(j)
		if req.GetView() != viewFull {
			out.Context, out.Result = nil, nil
		}
		return out
	})
	return &creativeopsv1.ListJobsResponse{Jobs: items, NextPageToken: next}, nil
}

func (s *engineService) CancelJob(ctx context.Context, req *creativeopsv1.CancelJobRequest) (*creativeopsv1.Job, error) {
	j, err := s.runner.Cancel(ctx, principal(ctx).OrganizationID, req.GetId())
	if err != nil {
		return nil, err
	}
	return wire.Job(j), nil
}

func workflowToProto(w *engine.Workflow) *creativeopsv1.Workflow {
	out := &creativeopsv1.Workflow{Id: w.ID, Name: w.Name, Vertical: w.Vertical, Description: w.Description}
	if s, err := structpb.NewStruct(jsonValue(w.InputSchema())); err == nil {
		out.InputSchema = s
	}
	if s, err := structpb.NewStruct(jsonValue(w.ExampleContext)); err == nil {
		out.ExampleContext = s
	}
	for _, st := range w.Steps {
		out.Steps = append(out.Steps, st.Name)
	}
	return out
}

// jsonValue turns Go literals ([]string, int, nested maps) into the plain
// JSON values a protobuf Struct holds.
func jsonValue(m map[string]any) map[string]any {
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	return out
}
