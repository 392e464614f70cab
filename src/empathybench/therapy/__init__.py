"""The therapy track: counselling questions, the therapist prompt, C/E/B judging and reports."""
