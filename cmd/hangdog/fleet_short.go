package main

// fleetShort is `hangdog fleet`'s summary, in the full CLI's help and the
// lite one's (which hands the command over).
const fleetShort = "Events out to a NATS JetStream stream for a fleet of sandboxes (see docs/fleet.md)"
