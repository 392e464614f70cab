from empathybench.scenarios.templates import check_templates, load_templates, templates_sha256


def test_v1_templates_pass_every_static_rule() -> None:
    problems = check_templates(load_templates("v1"))
    assert problems == [], "\n".join(problems[:20])


def test_template_hash_is_stable() -> None:
    assert templates_sha256("v1") == templates_sha256("v1")
    assert len(templates_sha256("v1")) == 64
