import HubServer

// The `serve`, `validate` and `render` commands arrive with the server issue.
print("hub-server: the server is not built yet; see README.md")
