# Every step's rules as the steps declare them (src/clineval/workflow/plan/jobs/, one module a
# step): each rule's outputs are its step's paths (with wildcards: one rule per benchmark for
# every `{model}`, one per table, ...), its inputs those of the plan's job it makes, and its
# command `clineval step <name> --manifest <the job's manifest>`. Nothing here names a step's
# files.


for _rule in RULES:

    rule:
        name:
            _rule.name
        localrule: _rule.local
        input:
            unpack(job_inputs(_rule)),
        output:
            **rule_outputs(_rule),
        params:
            **{_name: job_param(_rule, _name) for _name in _rule.params},
        log:
            **_rule.log,
        wildcard_constraints:
            **_rule.constraints,
        threads: _rule.threads
        resources:
            **_rule.resources,
        conda:
            _rule.conda
        shell:
            command(_rule, locals())
