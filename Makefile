# The two commands: `make run` (serve the dashboard) and `make test` (every test). Both install
# what is missing first (scripts/setup.sh).

.PHONY: run test setup build serve demo clean-dist

run: setup serve

test: setup
	bash scripts/test.sh

setup:
	bash scripts/setup.sh

# PORT=N (environment or `make run PORT=N`) serves on another port than 8088.
serve:
	bash scripts/serve.sh

# Release build of the dashboard into dist/ (what the e2e test serves).
build: setup
	bash -c 'source scripts/lib.sh && trunk build --release'

# Regenerate the committed demo cluster (a core test fails when it is stale).
demo:
	cargo run --locked -q -p lbplan -- generate --spec demo -o static/demo-snapshot.json

clean-dist:
	rm -rf dist test-artifacts
