"""Token and money accounting: /cost, the price table, the session budget, the cache TTL."""
