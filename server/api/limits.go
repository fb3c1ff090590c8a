package api

import "context"

// The service's default capacity quotas, as DescribeLimits reports them.
const (
	accountMaxCapacityUnits = 80000
	tableMaxCapacityUnits   = 40000
	// endpointCachePeriod is how long (minutes) clients may cache DescribeEndpoints.
	endpointCachePeriod = 1440
)

func (a *API) describeLimits(ctx context.Context, r *Request) (any, error) {
	var in struct{}
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	return map[string]any{
		"AccountMaxReadCapacityUnits":  accountMaxCapacityUnits,
		"AccountMaxWriteCapacityUnits": accountMaxCapacityUnits,
		"TableMaxReadCapacityUnits":    tableMaxCapacityUnits,
		"TableMaxWriteCapacityUnits":   tableMaxCapacityUnits,
	}, nil
}

// describeEndpoints names this server itself: the address the client used.
func (a *API) describeEndpoints(ctx context.Context, r *Request) (any, error) {
	var in struct{}
	if err := decode(r.Body, &in); err != nil {
		return nil, err
	}
	host := r.Host
	if host == "" {
		host = "localhost"
	}
	return map[string]any{
		"Endpoints": []map[string]any{{"Address": host, "CachePeriodInMinutes": endpointCachePeriod}},
	}, nil
}
