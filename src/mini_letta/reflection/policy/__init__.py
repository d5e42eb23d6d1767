"""When reflection runs by itself: the post-turn trigger, backoff, queued launches."""
