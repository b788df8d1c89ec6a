module github.com/aymerick/douceur

go 1.19

require github.com/gorilla/css v1.0.1
