package jev

import (
	"encoding/json"
	"fmt"
)

// typesafeFormat is the hosted decision API: POST {"state", "model",
// "questions"} → {"answers": […]}.
type typesafeFormat struct{}

type typesafeRequest struct {
	State     wireState  `json:"state"`
	Model     string     `json:"model,omitempty"`
	Questions []Question `json:"questions"`
}

type typesafeResponse struct {
	Answers []Answer `json:"answers"`
}

func (typesafeFormat) request(model string, st State, qs []Question) ([]byte, error) {
	return json.Marshal(typesafeRequest{State: newWireState(st), Model: model, Questions: qs})
}

func (typesafeFormat) answers(body []byte, _ []Question) ([]Answer, error) {
	var resp typesafeResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("malformed response: %w", err)
	}
	if resp.Answers == nil {
		return nil, fmt.Errorf("malformed response: no \"answers\"")
	}
	return resp.Answers, nil
}
