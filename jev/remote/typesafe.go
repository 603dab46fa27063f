package remote

import (
	"encoding/json"
	"fmt"

	"github.com/hangdog/hangdog/jev"
)

// typesafeFormat is the hosted decision API: POST {"state", "model",
// "questions"} → {"answers": […]}.
type typesafeFormat struct{}

type typesafeRequest struct {
	State     wireState      `json:"state"`
	Model     string         `json:"model,omitempty"`
	Questions []jev.Question `json:"questions"`
}

type typesafeResponse struct {
	Answers []jev.Answer `json:"answers"`
}

func (typesafeFormat) request(model string, st jev.State, qs []jev.Question) ([]byte, error) {
	return json.Marshal(typesafeRequest{State: newWireState(st), Model: model, Questions: qs})
}

func (typesafeFormat) answers(body []byte, _ []jev.Question) ([]jev.Answer, error) {
	var resp typesafeResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if resp.Answers == nil {
		return nil, fmt.Errorf("malformed response: no \"answers\"")
	}
	return resp.Answers, nil
}
