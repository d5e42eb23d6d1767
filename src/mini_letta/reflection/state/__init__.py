"""What reflection keeps on disk: settings, run records, watermarks, the lease, the outbox."""
