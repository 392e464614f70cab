"""Access to models: the ModelAPI protocol, model specs, and one adapter per provider."""
