"""The plan: the grid expanded into cells (:mod:`.build`), each artifact's identity
(:mod:`.identities`), where its files go (:mod:`.layout`), the jobs' manifests (:mod:`.manifests`),
and the checks a plan passes before any job runs."""
