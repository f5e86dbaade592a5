// Rooms: the domain (Room, Participant, Publication, Subscription, rules,
// limits, 53xxx errors). Pure logic, no I/O, no media. Filled by the
// control-plane issue.
