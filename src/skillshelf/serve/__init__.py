"""skillshelf.serve"""
